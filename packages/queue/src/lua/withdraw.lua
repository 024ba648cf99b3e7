-- withdraw: the API admitted a job but could not add it to BullMQ; every trace of it leaves the lane.
-- ARGV[8] jobId, ARGV[9] dedupe key or "". Returns {id, delay, ...}.
-- ARGV[7] the lane.
useLane(0, ARGV[7])
local id, dedupeKey = ARGV[8], ARGV[9]
rcall('ZREM', RUN, id)
rcall('ZREM', JOBS, id)
rcall('LREM', WAIT, 0, id)
rcall('LREM', GWAIT, 0, id)
if rcall('HGET', STATE, 'gwake') == id then rcall('HDEL', STATE, 'gwake', 'gwakeAt') end
if dedupeKey ~= '' and rcall('GET', dedupeKey) == id then rcall('DEL', dedupeKey) end
local out = dispatch('')
settleIndex()
return out
