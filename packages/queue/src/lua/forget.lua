--[[
  forget: a service account was disconnected. The lane is its platform account's, which other
  service accounts may share (another tenant's, or the same account connected again), so only what
  is empty goes: with no unfinished job left, the lane's slots, wait lists and backlog keys and its
  sweeper entry. Its state (rate pacing, 429 pause, the last gapped call) stays, small and bounded by
  the platform accounts ever connected: dropping it would let a new connection call at once.

  Input:
    KEYS[1..2], ARGV[1..6]  prelude.lua
    KEYS[3..]  the lane's keys (lane.lua)
    ARGV[7]    the lane

  Output: 1 when keys were deleted, 0 when the lane still has jobs.
]]
local lane = readLane(ARGV[7], keyReader())
if rcall('ZCARD', lane.jobs) > 0 then return 0 end
rcall('DEL', lane.run, lane.wait, lane.gwait, lane.jobs, lane.gjobs)
rcall('ZREM', LANES, lane.name)
return 1
