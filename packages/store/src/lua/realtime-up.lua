--[[
  realtime-up: the account's realtime connection is open (account-health.ts `realtimeUp`). It counts
  as open since now, unless its last close was a hand-over to another listener (a reason of ARGV[3])
  at most ARGV[2] ms ago while it was open: then since it first opened. Only while the record exists.

  Input:
    KEYS[1]   the account's record
    KEYS[2]   its health hash: rtUpAt (open since), rtDownAt (closed since; absent while open),
              rtDownWhy (how it last closed)
    ARGV[1]   now (Unix ms)
    ARGV[2]   how long a hand-over may take (ms)
    ARGV[3]   the hand-over reasons, comma-separated

  Output: 1 when written, 0 when the account is gone.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local now = tonumber(ARGV[1])
local state = redis.call('HMGET', KEYS[2], 'rtUpAt', 'rtDownAt', 'rtDownWhy')
local up, down, why = tonumber(state[1] or ''), tonumber(state[2] or ''), state[3] or ''
local handedOver = false
for reason in string.gmatch(ARGV[3], '[^,]+') do
  if reason == why then handedOver = true end
end
local kept = up and down and down >= up and handedOver and now - down <= tonumber(ARGV[2])
if not kept then redis.call('HSET', KEYS[2], 'rtUpAt', ARGV[1]) end
redis.call('HDEL', KEYS[2], 'rtDownAt')
return 1
