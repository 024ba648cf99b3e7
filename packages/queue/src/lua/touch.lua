--[[
  touch: a gapped job is about to send another request (a repeat after a re-login): the gap to the
  next gapped call is measured from this one.

  Input:
    KEYS[1..2], ARGV[1..6]  prelude.lua
    KEYS[3..]  the lane's keys (lane.lua)
    ARGV[7]    the lane

  Output: 1
]]
local lane = readLane(ARGV[7], keyReader())
rcall('HSET', lane.state, 'last', now)
-- A call went out: no release may give this gap back.
rcall('HDEL', lane.state, 'lastBy', 'lastPrev')
return 1
