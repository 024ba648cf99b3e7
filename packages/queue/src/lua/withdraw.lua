--[[
  withdraw: the API admitted a job but could not add it to BullMQ; every trace of it leaves the lane.

  Input:
    KEYS[1..2], ARGV[1..6]  prelude.lua
    KEYS[3..]  the lane's keys (lane.lua), then the job's sharing key (keys.ts `lane(…).dedupe`)
               when it has one
    ARGV[7]    the lane
    ARGV[8]    jobId
    ARGV[9]    shares ("1": its sharing key follows the lane's keys, "0": it has none)
    ARGV[10]   gapped ("1"/"0", or "" when not known)

  Output: {id, delay, ...}: jobs to wake.
]]
local nextKey = keyReader()
local lane = readLane(ARGV[7], nextKey)
local dedupeKey = ARGV[9] == '1' and nextKey() or nil
return leave(lane, ARGV[8], dedupeKey, gappedArg(ARGV[10]))
