-- kick: dispatch without any other change (after parked jobs were added, or by the sweeper).
-- One lane per ARGV from ARGV[7]. Returns {id, delay, ...}.
local out = {}
for i = 0, #ARGV - 7 do
  useLane(i, ARGV[7 + i])
  for _, v in ipairs(dispatch('')) do table.insert(out, v) end
  settleIndex()
end
return out
