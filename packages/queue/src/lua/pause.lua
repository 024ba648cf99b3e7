--[[
  pause: the platform answered 429 for this account; nothing of the lane starts for a while.

  Input:
    KEYS[1..2], ARGV[1..6]  prelude.lua
    KEYS[3..]  the lane's keys (lane.lua)
    ARGV[7]    the lane
    ARGV[8]    how long (ms)
    ARGV[9]    why (optional): kept as the state's pauseWhy with the pause it set

  Output: 1
]]
local lane = readLane(ARGV[7], keyReader())
local untilMs = now + tonumber(ARGV[8])
if untilMs > num(rcall('HGET', lane.state, 'pause')) then
  rcall('HSET', lane.state, 'pause', untilMs)
  if ARGV[9] then rcall('HSET', lane.state, 'pauseWhy', ARGV[9]) else rcall('HDEL', lane.state, 'pauseWhy') end
  expireLoginState(lane, untilMs)
end
return 1
