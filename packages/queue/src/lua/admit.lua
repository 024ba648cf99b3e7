--[[
  admit: new jobs ask to join their lanes; the API admits what it received together in one call.

  Input:
    KEYS[1..2], ARGV[1..6]  prelude.lua
    KEYS[3..]  per job, in order: its lane's keys (lane.lua), then its sharing key
               (keys.ts `lane(…).dedupe`) when it has one
    ARGV[7]    max backlog: unfinished jobs a lane may have
    ARGV[8]    sharing key lifetime (ms)
    ARGV[9..]  four per job: lane, jobId, gapped ("1"/"0"), shares ("1": its sharing key follows
               its lane's keys, "0": it has none)

  Output: one reply per job, in order:
    {"share", existingId}           an identical pending request's job answers it
    {"full", backlog, gappedCount}  the lane's backlog is full (gappedCount: media-stats jobs of it
                                    waiting, which leave one per gap)
    {"ok", id, delay, id, delay, ...}  admitted; the wakes its dispatch granted, the job itself among
                                    them when it was granted
]]
local maxBacklog, dedupeTtl = tonumber(ARGV[7]), ARGV[8]

-- The job of an identical request that this one may share: unfinished (added and not finished, or
-- admitted a moment ago and being added). Nil when there is none.
local function shareable(lane, dedupeKey)
  local existing = rcall('GET', dedupeKey)
  if not existing or not rcall('ZSCORE', lane.jobs, existing) then return nil end
  if jobExists(existing) then
    if not jobFinished(jobKey(existing)) then return existing end
  elseif recent(lane, existing) then
    return existing
  end
  return nil
end

-- Entries of jobs that finished without being released (a crashed worker) are dropped lazily, once
-- the backlog is full. Returns the backlog left.
local function trimBacklog(lane)
  for _, old in ipairs(rcall('ZRANGE', lane.jobs, 0, 19)) do
    local key = requestJobKey(old)
    if (not key and not recent(lane, old)) or (key and jobFinished(key)) then
      unlist(lane, old)
    end
  end
  return rcall('ZCARD', lane.jobs)
end

local function admit(lane, id, gapped, dedupeKey)
  if dedupeKey then
    local existing = shareable(lane, dedupeKey)
    if existing then return { 'share', existing } end
  end
  local backlog = rcall('ZCARD', lane.jobs)
  if backlog >= maxBacklog then
    backlog = trimBacklog(lane)
    if backlog >= maxBacklog then
      -- How many of them are media-stats jobs, which leave only one per gap.
      local gwake = rcall('HGET', lane.state, 'gwake')
      local waiting = rcall('LLEN', lane.gwait) + ((gwake and gwake ~= '') and 1 or 0)
      return { 'full', tostring(backlog), tostring(waiting) }
    end
  end
  rcall('ZADD', lane.jobs, now, id)
  if gapped then rcall('SADD', lane.gjobs, id) end
  if dedupeKey then rcall('SET', dedupeKey, id, 'PX', dedupeTtl) end
  -- The common case, cheaply: nothing waiting and a slot free, so the job is granted at once, exactly
  -- as dispatch would grant it (the full path below also handles stale leases and the gap).
  if not gapped and rcall('LLEN', lane.wait) == 0 and rcall('ZCARD', lane.run) < concurrency then
    local st = readState(lane)
    local start = math.max(now, st.next, st.pause)
    grant(lane, id, start, st, false, false)
    return { 'ok', id, start - now }
  end
  rcall('RPUSH', gapped and lane.gwait or lane.wait, id)
  local out = dispatch(lane, id)
  settleIndex(lane)
  table.insert(out, 1, 'ok')
  return out
end

return eachJob(9, 4, function(lane, nextKey, id, gapped, shares)
  local dedupeKey = shares == '1' and nextKey() or nil
  return admit(lane, id, gapped == '1', dedupeKey)
end)
