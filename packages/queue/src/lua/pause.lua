--[[
  pause: the platform answered 429 for this account; nothing of the lane starts for a while.

  Input:
    KEYS[1..2], ARGV[1..6]  prelude.lua
    KEYS[3..]  the lane's keys (lane.lua)
    ARGV[7]    the lane
    ARGV[8]    how long (ms)

  Output: 1
]]
local lane = readLane(ARGV[7], keyReader())
local untilMs = now + tonumber(ARGV[8])
if untilMs > num(rcall('HGET', lane.state, 'pause')) then
  rcall('HSET', lane.state, 'pause', untilMs)
  expireLoginState(lane, untilMs)
end
return 1
