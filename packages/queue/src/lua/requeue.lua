-- requeue: a job that claim told to park is now in BullMQ's delayed set; it goes to the FRONT of its
-- wait list (it was admitted before everyone waiting) and the lane dispatches.
-- ARGV[7] the lane, ARGV[8] jobId, ARGV[9] gapped ("1"/"0"). Returns {id, delay, ...}.
useLane(0, ARGV[7])
local id, gapped = ARGV[8], ARGV[9] == '1'
-- Cancelled between its claim and now: it is woken instead, and its next claim fails it.
if cancelled(id) then return { id, 0 } end
rcall('LPUSH', gapped and GWAIT or WAIT, id)
local out = dispatch('')
settleIndex()
return out
