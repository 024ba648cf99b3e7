-- kick: dispatch without any other change (after parked jobs were added, or by the sweeper).
-- One lane per ARGV from ARGV[7]. Returns {id, delay, ...}.
return concat(eachJob(7, 1, function()
  local out = dispatch('')
  settleIndex()
  return out
end))
