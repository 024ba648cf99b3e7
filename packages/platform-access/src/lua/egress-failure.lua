--[[
  egress-failure: counts a proxy-layer failure of a proxy; at the threshold within the window the
  proxy is down for the cooldown (proxy-health.ts).

  Input:
    KEYS[1]   the proxy's failure count
    KEYS[2]   the proxy's down mark
    ARGV[1]   failures that take it down
    ARGV[2]   the window they are counted in (ms)
    ARGV[3]   how long it stays down (ms)

  Output: 1 when the proxy is down (now, or already), else 0.
]]
if redis.call('EXISTS', KEYS[2]) == 1 then return 1 end
local failures = redis.call('INCR', KEYS[1])
if failures == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if failures < tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1])
redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
return 1
