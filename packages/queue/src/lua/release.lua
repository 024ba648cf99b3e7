-- release: platform calls are over (success, failure, or a retry later); the worker releases what
-- finished together in one call. Five per job from ARGV[7]: lane, jobId, final ("1": the job will not
-- run again), dedupe key or "", gapped: "0" no, "1" a gapped job, "2" a gapped job let through by its
-- claim that then sent nothing to the platform (its account was disconnected or needs a new login
-- while it waited).
-- Returns {id, delay, ...}: waiting jobs to wake.

-- A gapped job that sent nothing gives its gap back: `last` and `plan` return to the call before it,
-- and a gapped job on a timed wake is woken for the earlier end of the gap.
local function unstart(id)
  local s = rcall('HMGET', STATE, 'lastBy', 'lastPrev', 'plan', 'last', 'gwake', 'gwakeAt')
  if s[1] ~= id then return {} end
  local previous = num(s[2])
  -- The plan was this job's start unless a later gapped job was granted since.
  local plan = num(s[3])
  if plan <= num(s[4]) then plan = previous end
  rcall('HSET', STATE, 'last', previous, 'plan', plan)
  rcall('HDEL', STATE, 'lastBy', 'lastPrev')
  local gwake = s[5]
  if not gwake or gwake == '' then return {} end
  local ready = math.max(now, gapEnd(previous, plan))
  if ready >= num(s[6]) then return {} end
  rcall('HSET', STATE, 'gwakeAt', ready)
  return { gwake, ready - now }
end

local function release(id, final, dedupeKey, gapped)
  local out = gapped == '2' and unstart(id) or {}
  rcall('ZREM', RUN, id)
  if final then
    rcall('ZREM', JOBS, id)
    if dedupeKey ~= '' and rcall('GET', dedupeKey) == id then
      rcall('DEL', dedupeKey)
    end
    -- A gapped job named as the timed wake that ends without running (it woke early, then failed
    -- before its call) would hold the gapped list until cleanup gave up on it.
    if gapped ~= '0' and rcall('HGET', STATE, 'gwake') == id then
      rcall('HDEL', STATE, 'gwake', 'gwakeAt')
    end
  end
  -- Nobody waiting: nothing to dispatch (stale leases are the next caller's or the sweeper's; a
  -- media-stats job on a timed wake wakes by itself; the sweeper drops the lane from its index).
  if rcall('EXISTS', WAIT, GWAIT) == 0 then
    return out
  end
  out = concat({ out, dispatch('') })
  settleIndex()
  return out
end

return concat(eachJob(7, 5, function(id, final, dedupeKey, gapped)
  return release(id, final == '1', dedupeKey, gapped)
end))
