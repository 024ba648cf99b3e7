-- kick: dispatch without any other change (after a parked job was added, or by the sweeper).
-- Returns {id, delay, ...}.
local out = dispatch('')
settleIndex()
return out
