-- admit: a new job asks to join the lane.
-- ARGV[8] jobId, ARGV[9] gapped ("1"/"0"), ARGV[10] max backlog, ARGV[11] dedupe key or "",
-- ARGV[12] dedupe ttl (ms)
-- Returns {"share", existingId} | {"full", backlog} | {"ok", id, delay, id, delay, ...}
local id, gappedArg, maxBacklog, dedupeKey, dedupeTtl = ARGV[8], ARGV[9] == '1', tonumber(ARGV[10]), ARGV[11], ARGV[12]
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
    if (not exists(old) and not recent(old)) or rcall('HEXISTS', jobPrefix .. old, 'finishedOn') == 1 then
      rcall('ZREM', JOBS, old)
    end
  end
  backlog = rcall('ZCARD', JOBS)
  if backlog >= maxBacklog then
    return { 'full', tostring(backlog) }
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
  grant(id, start, st, false)
  return { 'ok', id, start - now }
end
rcall('RPUSH', gappedArg and GWAIT or WAIT, id)
local out = dispatch(id)
table.insert(out, 1, 'ok')
return out
