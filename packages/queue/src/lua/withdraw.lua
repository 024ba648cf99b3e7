-- withdraw: the API admitted a job but could not add it to BullMQ; every trace of it leaves the lane.
-- ARGV[7] the lane, ARGV[8] jobId, ARGV[9] dedupe key or "". Returns {id, delay, ...}.
useLane(0, ARGV[7])
return leave(ARGV[8], ARGV[9])
