--[[
  claim: a worker took a job from BullMQ (or a batch of them) and asks whether each may call the
  platform now.

  Input:
    KEYS[1..2], ARGV[1..6]  prelude.lua
    KEYS[3..]  per job, in order: its lane's keys (lane.lua), then its cancel mark (keys.ts
               `cancelled`)
    ARGV[7..]  three per job: lane, jobId, gapped ("1"/"0")

  Output: one reply per job, in order:
    {"run", wakes...}         go
    {"delay", ms, wakes...}   wait this long (in BullMQ's delayed set), then claim again
    {"park", wakes...}        wait for a slot: see below
    {"cancelled"}             its caller cancelled it: it fails without a platform call
  ("wakes": {id, delay, ...}, jobs the lane's dispatch granted.)

  "park" means: move the job to BullMQ's delayed set (a batched request: add it as a job of its own,
  delayed), THEN call requeue. It is not put back in a wait list here, because a dispatch in between
  could grant it while it is still active, and the wake-up (a delay change on a delayed job) would
  be lost.
]]

-- A gapped job is let through: the gap counts from now. What it replaces is kept (`lastBy`,
-- `lastPrev`) so that a release saying the job called nothing can give the gap back.
local function started(lane, id, st)
  rcall('HSET', lane.state, 'last', now, 'lastBy', id, 'lastPrev', st.last)
end

local function claim(lane, id, gapped, cancelKey)
  -- The common case, cheaply: a job granted when it was admitted, its account not paused.
  -- A lease with more than half its time left is not renewed. A grant whose start (its lease less
  -- `lease`) is still ahead takes the full path, which delays it.
  local held = rcall('ZSCORE', lane.run, id)
  if not gapped and held and tonumber(held) - lease <= now and num(rcall('HGET', lane.state, 'pause')) <= now then
    if tonumber(held) - now < lease / 2 then rcall('ZADD', lane.run, now + lease, id) end
    return { 'run' }
  end

  -- Cancelled while it waited (cancel took its slot, if it had one): it fails without a platform call.
  -- Whatever of it is still in the lane goes (nothing, unless something queued it again).
  if marked(cancelKey) then
    unlist(lane, id, gapped)
    rcall('LREM', lane.wait, 0, id)
    rcall('LREM', lane.gwait, 0, id)
    return { 'cancelled' }
  end

  cleanup(lane)
  local st = readState(lane)
  local granted = rcall('ZSCORE', lane.run, id)
  if gapped and st.gwake == id then
    rcall('HDEL', lane.state, 'gwake', 'gwakeAt')
    st.gwake = ''
  end

  local function answer(kind, ms)
    local out = dispatch(lane, nil)
    if ms then table.insert(out, 1, ms) end
    table.insert(out, 1, kind)
    return out
  end

  -- The gap is measured between actual starts (`gap` includes a margin for the way to the platform).
  -- The job waits for it on its own timer, without a slot; `gwake` keeps other gapped jobs behind it.
  if gapped and st.last > 0 and now < st.last + gap then
    if granted then rcall('ZREM', lane.run, id) end
    rcall('HSET', lane.state, 'gwake', id, 'gwakeAt', st.last + gap)
    return answer('delay', st.last + gap - now)
  end

  if granted then
    if st.pause > now then
      -- Paused by a 429 after the slot was granted: give the slot back and queue again.
      rcall('ZREM', lane.run, id)
      return answer('park')
    end
    if tonumber(granted) - lease > now then
      -- Woken before its start (a crash between its grant and its delayed add): it waits for it.
      return { 'delay', tonumber(granted) - lease - now }
    end
    rcall('ZADD', lane.run, now + lease, id)
    if gapped then started(lane, id, st) end
    return { 'run' }
  end

  -- Not granted: a retry after its backoff, a gapped job after its gap, or a parked job woken by its
  -- safety timer (it leaves its place in the list and is queued again at the front).
  rcall('LREM', lane.wait, 0, id)
  rcall('LREM', lane.gwait, 0, id)
  if rcall('ZCARD', lane.run) < concurrency then
    local start = math.max(now, st.next, st.pause)
    grant(lane, id, start, st, gapped)
    if start > now then
      return { 'delay', start - now }
    end
    if gapped then started(lane, id, st) end
    return { 'run' }
  end
  return { 'park' }
end

return eachJob(7, 3, function(lane, nextKey, id, gapped)
  return claim(lane, id, gapped == '1', nextKey())
end)
