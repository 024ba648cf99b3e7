-- pause: the platform answered 429 for this account; nothing starts for ARGV[8] ms.
-- ARGV[7] the lane.
useLane(0, ARGV[7])
local untilMs = now + tonumber(ARGV[8])
if untilMs > num(rcall('HGET', STATE, 'pause')) then
  rcall('HSET', STATE, 'pause', untilMs)
  expireLoginState(untilMs)
end
return 1
