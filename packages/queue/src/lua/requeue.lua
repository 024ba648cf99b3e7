--[[
  requeue: a job that claim told to park is now in BullMQ's delayed set; it goes to the FRONT of its
  wait list (it was admitted before everyone waiting) and the lane dispatches.

  Input:
    KEYS[1..2], ARGV[1..6]  prelude.lua
    KEYS[3..]  the lane's keys (lane.lua), then the job's cancel mark (keys.ts `cancelled`)
    ARGV[7]    the lane
    ARGV[8]    jobId
    ARGV[9]    gapped ("1"/"0")

  Output: {id, delay, ...}: jobs to wake.
]]
local nextKey = keyReader()
local lane = readLane(ARGV[7], nextKey)
local cancelKey = nextKey()
local id, gapped = ARGV[8], ARGV[9] == '1'
-- Cancelled between its claim and now: it is woken instead, and its next claim fails it.
if marked(cancelKey) then return { id, 0 } end
rcall('LPUSH', gapped and lane.gwait or lane.wait, id)
local out = dispatch(lane, nil)
settleIndex(lane)
return out
