--[[
  audit-append: appends one entry to a tenant's audit log, trimmed to the retention by MINID, and
  keeps the stream for the retention after its last entry (audit.ts).

  Input:
    KEYS[1]   the tenant's audit stream
    ARGV[1]   the entry (JSON)
    ARGV[2]   the retention (ms)

  Output: the entry's stream id (its time is Redis' clock).
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local id = redis.call('XADD', KEYS[1], 'MINID', '~', now - tonumber(ARGV[2]), '*', 'e', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return id
