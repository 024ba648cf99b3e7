-- claim: a worker took the job from BullMQ and asks whether it may call the platform now.
-- ARGV[9] jobId, ARGV[10] gapped ("1"/"0")
-- Returns {"run", wakes...} | {"delay", ms, wakes...} | {"park", wakes...}
local id, gapped = ARGV[9], ARGV[10] == '1'
cleanup()
local st = readState()
local granted = rcall('ZSCORE', RUN, id)
if gapped and st.gwake == id then
  rcall('HDEL', STATE, 'gwake')
  st.gwake = ''
end

local function answer(kind, ms)
  local out = dispatch('')
  if ms then table.insert(out, 1, ms) end
  table.insert(out, 1, kind)
  return out
end

-- The gap is measured between actual starts (`gap` includes a margin for the time from here to the
-- request itself).
if gapped and st.last > 0 and now < st.last + gap then
  if granted then rcall('ZREM', RUN, id) end
  rcall('HSET', STATE, 'gwake', id)
  return answer('delay', st.last + gap - now)
end

if granted then
  if st.pause > now then
    -- Paused by a 429 after the slot was granted: give the slot back, come back when it ends.
    rcall('ZREM', RUN, id)
    rcall('LPUSH', gapped and GWAIT or WAIT, id)
    return answer('park')
  end
  rcall('ZADD', RUN, now + lease, id)
  if gapped then rcall('HSET', STATE, 'last', now) end
  return { 'run' }
end

-- Not granted: a retry after its backoff, a gapped job after its gap, or a parked job woken by its
-- safety timer. A job still in a wait list stays there.
if rcall('LPOS', WAIT, id) or rcall('LPOS', GWAIT, id) then
  return { 'park' }
end
if rcall('ZCARD', RUN) < concurrency then
  local start = math.max(now, st.next, st.pause)
  grant(id, start, st, gapped)
  if start > now then
    return { 'delay', start - now }
  end
  if gapped then rcall('HSET', STATE, 'last', now) end
  return { 'run' }
end
-- Full: it was admitted before everyone waiting, so it goes to the front.
rcall('LPUSH', gapped and GWAIT or WAIT, id)
return { 'park' }
