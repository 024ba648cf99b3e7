-- release: platform calls are over (success, failure, or a retry later); the worker releases what
-- finished together in one call. Five per job from ARGV[7]: lane, jobId, final ("1": the job will not
-- run again), dedupe key or "", idle ("1": a gapped job that sent nothing to the platform, such as
-- one whose account was disconnected while it waited).
-- Returns {id, delay, ...}: waiting jobs to wake.

-- An idle gapped job gives its gap back: `last` and `plan` return to the call before it, and a
-- gapped job on a timed wake is woken for the earlier end of the gap.
local function unstart(id)
  local s = rcall('HMGET', STATE, 'lastBy', 'lastPrev', 'plan', 'last', 'gwake', 'gwakeAt')
  if s[1] ~= id then return {} end
  local previous = num(s[2])
  rcall('HSET', STATE, 'last', previous)
  -- The plan was this job's start unless a later gapped job was granted since.
  if num(s[3]) <= num(s[4]) then rcall('HSET', STATE, 'plan', previous) end
  rcall('HDEL', STATE, 'lastBy', 'lastPrev')
  local gwake = s[5]
  if not gwake or gwake == '' then return {} end
  local from = math.max(previous, num(rcall('HGET', STATE, 'plan')))
  local ready = from == 0 and now or from + gap
  if ready >= num(s[6]) then return {} end
  rcall('HSET', STATE, 'gwakeAt', ready)
  return { gwake, math.max(0, ready - now) }
end

local function release(id, final, dedupeKey, idle)
  local out = idle and unstart(id) or {}
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
    return out
  end
  out = concat({ out, dispatch('') })
  settleIndex()
  return out
end

return concat(eachJob(7, 5, function(id, final, dedupeKey, idle)
  return release(id, final == '1', dedupeKey, idle == '1')
end))
