-- admit: new jobs ask to join their lanes; the API admits what it received together in one call.
-- ARGV[7] max backlog, ARGV[8] dedupe ttl (ms), then four per job from ARGV[9]: lane, jobId,
-- gapped ("1"/"0"), dedupe key or "". The i-th job's lane keys are the i-th five after KEYS[1].
-- Returns one reply per job: {"share", existingId} | {"full", backlog, gapped waiting} |
-- {"ok", id, delay, id, delay, ...}
local maxBacklog, dedupeTtl = tonumber(ARGV[7]), ARGV[8]

local function admit(id, gappedArg, dedupeKey)
  if dedupeKey ~= '' then
    local existing = rcall('GET', dedupeKey)
    -- Share only an unfinished job: added and not finished, or admitted a moment ago and being added.
    if existing and rcall('ZSCORE', JOBS, existing) then
      if exists(existing) then
        if rcall('HEXISTS', jobPrefix .. existing, 'finishedOn') == 0 then return { 'share', existing } end
      elseif recent(existing) then
        return { 'share', existing }
      end
    end
  end
  local backlog = rcall('ZCARD', JOBS)
  if backlog >= maxBacklog then
    -- Entries of jobs that finished without being released (a crashed worker) are dropped lazily.
    for _, old in ipairs(rcall('ZRANGE', JOBS, 0, 19)) do
      local key = jobKeyOf(old)
      if (not key and not recent(old)) or (key and rcall('HEXISTS', key, 'finishedOn') == 1) then
        rcall('ZREM', JOBS, old)
      end
    end
    backlog = rcall('ZCARD', JOBS)
    if backlog >= maxBacklog then
      -- How many of them are media-stats jobs, which leave only one per gap.
      local gwake = rcall('HGET', STATE, 'gwake')
      local gapped = rcall('LLEN', GWAIT) + ((gwake and gwake ~= '') and 1 or 0)
      return { 'full', tostring(backlog), tostring(gapped) }
    end
  end
  rcall('ZADD', JOBS, now, id)
  if dedupeKey ~= '' then
    rcall('SET', dedupeKey, id, 'PX', dedupeTtl)
  end
  -- The common case, cheaply: nothing waiting and a slot free, so the job is granted at once, exactly
  -- as dispatch would grant it (the full path below also handles stale leases and the gap).
  if not gappedArg and rcall('LLEN', WAIT) == 0 and rcall('ZCARD', RUN) < concurrency then
    local st = readState()
    local start = math.max(now, st.next, st.pause)
    grant(id, start, st, false, false)
    return { 'ok', id, start - now }
  end
  rcall('RPUSH', gappedArg and GWAIT or WAIT, id)
  local out = dispatch(id)
  settleIndex()
  table.insert(out, 1, 'ok')
  return out
end

return eachJob(9, 4, function(id, gapped, dedupeKey)
  return admit(id, gapped == '1', dedupeKey)
end)
