--[[
  kick: dispatch without any other change (after parked jobs were added, or by the sweeper).

  Input:
    KEYS[1..2], ARGV[1..6]  prelude.lua
    KEYS[3..]  per lane, in order: its keys (lane.lua)
    ARGV[7..]  one per lane: its name

  Output: {id, delay, ...}: jobs to wake.
]]
return concat(eachJob(7, 1, function(lane)
  local out = dispatch(lane, nil)
  settleIndex(lane)
  return out
end))
