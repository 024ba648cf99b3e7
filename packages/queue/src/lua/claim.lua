-- claim: a worker took a job from BullMQ (or a batch of them) and asks whether each may call the
-- platform now. Three per job from ARGV[7]: lane, jobId, gapped ("1"/"0").
-- Returns one reply per job: {"run", wakes...} | {"delay", ms, wakes...} | {"park", wakes...} |
-- {"cancelled"} (its caller cancelled it: the job fails without a platform call).
-- "park" means: move the job to BullMQ's delayed set (a batched request: add it as a job of its own,
-- delayed), THEN call requeue. It is not put back in a wait list here, because a dispatch in between
-- could grant it while it is still active, and the wake-up (a delay change on a delayed job) would
-- be lost.

-- A gapped job is let through: the gap counts from now. What it replaces is kept (`lastBy`,
-- `lastPrev`) so that a release saying the job called nothing can give the gap back.
local function started(id, st)
  rcall('HSET', STATE, 'last', now, 'lastBy', id, 'lastPrev', st.last)
end

local function claim(id, gapped)
  -- The common case, cheaply: a job granted when it was admitted, its account not paused.
  -- A lease with more than half its time left is not renewed. A grant whose start (its lease less
  -- `lease`) is still ahead takes the full path, which delays it.
  local held = rcall('ZSCORE', RUN, id)
  if not gapped and held and tonumber(held) - lease <= now and num(rcall('HGET', STATE, 'pause')) <= now then
    if tonumber(held) - now < lease / 2 then rcall('ZADD', RUN, now + lease, id) end
    return { 'run' }
  end

  -- Cancelled while it waited (cancel took its slot, if it had one): it fails without a platform call.
  -- Whatever of it is still in the lane goes (nothing, unless something queued it again).
  if cancelled(id) then
    rcall('ZREM', JOBS, id)
    rcall('LREM', WAIT, 0, id)
    rcall('LREM', GWAIT, 0, id)
    return { 'cancelled' }
  end

  cleanup()
  local st = readState()
  local granted = rcall('ZSCORE', RUN, id)
  if gapped and st.gwake == id then
    rcall('HDEL', STATE, 'gwake', 'gwakeAt')
    st.gwake = ''
  end

  local function answer(kind, ms)
    local out = dispatch('')
    if ms then table.insert(out, 1, ms) end
    table.insert(out, 1, kind)
    return out
  end

  -- The gap is measured between actual starts (`gap` includes a margin for the way to the platform).
  -- The job waits for it on its own timer, without a slot; `gwake` keeps other gapped jobs behind it.
  if gapped and st.last > 0 and now < st.last + gap then
    if granted then rcall('ZREM', RUN, id) end
    rcall('HSET', STATE, 'gwake', id, 'gwakeAt', st.last + gap)
    return answer('delay', st.last + gap - now)
  end

  if granted then
    if st.pause > now then
      -- Paused by a 429 after the slot was granted: give the slot back and queue again.
      rcall('ZREM', RUN, id)
      return answer('park')
    end
    if tonumber(granted) - lease > now then
      -- Woken before its start (a crash between its grant and its delayed add): it waits for it.
      return { 'delay', tonumber(granted) - lease - now }
    end
    rcall('ZADD', RUN, now + lease, id)
    if gapped then started(id, st) end
    return { 'run' }
  end

  -- Not granted: a retry after its backoff, a gapped job after its gap, or a parked job woken by its
  -- safety timer (it leaves its place in the list and is queued again at the front).
  rcall('LREM', WAIT, 0, id)
  rcall('LREM', GWAIT, 0, id)
  if rcall('ZCARD', RUN) < concurrency then
    local start = math.max(now, st.next, st.pause)
    grant(id, start, st, gapped)
    if start > now then
      return { 'delay', start - now }
    end
    if gapped then started(id, st) end
    return { 'run' }
  end
  return { 'park' }
end

return eachJob(7, 3, function(id, gapped)
  return claim(id, gapped == '1')
end)
