--[[
  forget: a lane's owner left. For a disconnected service account the lane is its platform
  account's, which other service accounts may share (another tenant's, or the same account connected
  again), so only what is empty goes: with no unfinished job left, the lane's slots, wait lists and
  backlog keys and its sweeper entry. Its state (rate pacing, 429 pause, the last gapped call) stays,
  small and bounded by the platform accounts ever connected: dropping it would let a new connection
  call at once. An owner gone for good (a webhook endpoint deleted, its waiting jobs removed) takes
  every key, its state included, at once: a job of it still running finds nothing to give back.

  Input:
    KEYS[1..2], ARGV[1..6]  prelude.lua
    KEYS[3..]  the lane's keys (lane.lua)
    ARGV[7]    the lane
    ARGV[8]    "1": the owner is gone for good

  Output: 1 when keys were deleted, 0 when the lane still has jobs.
]]
local lane = readLane(ARGV[7], keyReader())
local forGood = ARGV[8] == '1'
if not forGood and rcall('ZCARD', lane.jobs) > 0 then return 0 end
rcall('DEL', lane.run, lane.wait, lane.gwait, lane.jobs, lane.gjobs)
if forGood then rcall('DEL', lane.state) end
rcall('ZREM', LANES, lane.name)
return 1
