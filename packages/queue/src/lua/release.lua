-- release: the job's platform call is over (success, failure, or a retry later).
-- ARGV[8] jobId, ARGV[9] final ("1": the job will not run again), ARGV[10] dedupe key or ""
-- Returns {id, delay, ...}: waiting jobs to wake.
local id, final, dedupeKey = ARGV[8], ARGV[9] == '1', ARGV[10]
rcall('ZREM', RUN, id)
if final then
  rcall('ZREM', JOBS, id)
  if dedupeKey ~= '' and rcall('GET', dedupeKey) == id then
    rcall('DEL', dedupeKey)
  end
end
-- Nobody waiting: nothing to dispatch (stale leases are the next caller's or the sweeper's).
if rcall('LLEN', WAIT) == 0 and rcall('LLEN', GWAIT) == 0 and not rcall('HGET', STATE, 'gwake') then
  if rcall('ZCARD', RUN) == 0 then rcall('ZREM', LANES, lane) end
  return {}
end
local out = dispatch('')
settleIndex()
return out
