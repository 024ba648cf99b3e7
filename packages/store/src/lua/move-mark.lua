--[[
  move-mark: moves a numeric field of an account's record forward, never back, and only while the
  account exists (accounts.ts `moveRealtimeMark`: a holder that lost the account a moment ago may
  still write an older mark, and a disconnected account must not come back as a bare field).

  Input:
    KEYS[1]   the account's record
    ARGV[1]   the field
    ARGV[2]   its new value

  Output: 1 when moved, else 0.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0') >= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
