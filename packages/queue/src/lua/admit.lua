-- admit: a new job asks to join the lane.
-- ARGV[9] jobId, ARGV[10] gapped ("1"/"0"), ARGV[11] max backlog, ARGV[12] dedupe key or "",
-- ARGV[13] dedupe ttl (ms)
-- Returns {"share", existingId} | {"full", backlog} | {"ok", id, delay, id, delay, ...}
local id, gappedArg, maxBacklog, dedupeKey, dedupeTtl = ARGV[9], ARGV[10] == '1', tonumber(ARGV[11]), ARGV[12], ARGV[13]
if dedupeKey ~= '' then
  local existing = rcall('GET', dedupeKey)
  -- Unfinished (still in the lane's jobs), even if its adder has not added it to BullMQ yet.
  if existing and rcall('ZSCORE', JOBS, existing) then
    return { 'share', existing }
  end
end
local backlog = rcall('ZCARD', JOBS)
if backlog >= maxBacklog then
  -- Entries of jobs that finished without being released (a crashed worker) are dropped lazily.
  for _, old in ipairs(rcall('ZRANGE', JOBS, 0, 19)) do
    if not exists(old) or rcall('HEXISTS', jobPrefix .. old, 'finishedOn') == 1 then
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
rcall('RPUSH', gappedArg and GWAIT or WAIT, id)
local out = dispatch(id)
table.insert(out, 1, 'ok')
return out
