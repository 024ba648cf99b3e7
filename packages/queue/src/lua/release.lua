-- release: the job's platform call is over (success, failure, or a retry later).
-- ARGV[9] jobId, ARGV[10] final ("1": the job will not run again), ARGV[11] dedupe key or ""
-- Returns {id, delay, ...}: waiting jobs to wake.
local id, final, dedupeKey = ARGV[9], ARGV[10] == '1', ARGV[11]
rcall('ZREM', RUN, id)
if final then
  rcall('ZREM', JOBS, id)
  if dedupeKey ~= '' and rcall('GET', dedupeKey) == id then
    rcall('DEL', dedupeKey)
  end
end
local out = dispatch('')
if rcall('ZCARD', RUN) == 0 and rcall('LLEN', WAIT) == 0 and rcall('LLEN', GWAIT) == 0 then
  rcall('ZREM', LANES, lane)
end
return out
