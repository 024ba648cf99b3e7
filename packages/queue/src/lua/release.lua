-- release: platform calls are over (success, failure, or a retry later); the worker releases what
-- finished together in one call. Four per job from ARGV[7]: lane, jobId, final ("1": the job will not
-- run again), dedupe key or "".
-- Returns {id, delay, ...}: waiting jobs to wake.
local function release(id, final, dedupeKey)
  rcall('ZREM', RUN, id)
  if final then
    rcall('ZREM', JOBS, id)
    if dedupeKey ~= '' and rcall('GET', dedupeKey) == id then
      rcall('DEL', dedupeKey)
    end
  end
  -- Nobody waiting: nothing to dispatch (stale leases are the next caller's or the sweeper's; a
  -- media-stats job on a timed wake wakes by itself; the sweeper drops the lane from its index).
  if rcall('EXISTS', WAIT, GWAIT) == 0 then
    return {}
  end
  local out = dispatch('')
  settleIndex()
  return out
end

return concat(eachJob(7, 4, function(id, final, dedupeKey)
  return release(id, final == '1', dedupeKey)
end))
