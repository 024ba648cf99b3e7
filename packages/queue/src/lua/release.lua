--[[
  release: platform calls are over (success, failure, or a retry later); the worker releases what
  finished together in one call.

  Input:
    KEYS[1..2], ARGV[1..6]  prelude.lua
    KEYS[3..]  per job, in order: its lane's keys (lane.lua), then its sharing key (keys.ts
               `lane(…).dedupe`) when it has one
    ARGV[7..]  five per job: lane, jobId, final ("1": the job will not run again), gapped ("0" no,
               "1" a gapped job, "2" a gapped job its claim let through that then sent nothing to
               the platform: its account was disconnected or needs a new login), shares ("1": its
               sharing key follows its lane's keys, "0": it has none)

  Output: {id, delay, ...}: waiting jobs to wake.
]]

-- A gapped job that sent nothing gives its gap back: `last` and `plan` return to the call before it,
-- and a gapped job on a timed wake is woken for the earlier end of the gap.
local function unstart(lane, id)
  local s = rcall('HMGET', lane.state, 'lastBy', 'lastPrev', 'plan', 'last', 'gwake', 'gwakeAt')
  if s[1] ~= id then return {} end
  local previous = num(s[2])
  -- The plan was this job's start unless a later gapped job was granted since.
  local plan = num(s[3])
  if plan <= num(s[4]) then plan = previous end
  rcall('HSET', lane.state, 'last', previous, 'plan', plan)
  rcall('HDEL', lane.state, 'lastBy', 'lastPrev')
  local gwake = s[5]
  if not gwake or gwake == '' then return {} end
  local ready = math.max(now, gapEnd(previous, plan))
  if ready >= num(s[6]) then return {} end
  rcall('HSET', lane.state, 'gwakeAt', ready)
  return { gwake, ready - now }
end

local function release(lane, id, final, gapped, dedupeKey)
  local out = gapped == '2' and unstart(lane, id) or {}
  rcall('ZREM', lane.run, id)
  if final then
    unlist(lane, id, gapped ~= '0')
    if dedupeKey and rcall('GET', dedupeKey) == id then
      rcall('DEL', dedupeKey)
    end
    -- A gapped job named as the timed wake that ends without running (it woke early, then failed
    -- before its call) would hold the gapped list until cleanup gave up on it.
    if gapped ~= '0' and rcall('HGET', lane.state, 'gwake') == id then
      rcall('HDEL', lane.state, 'gwake', 'gwakeAt')
    end
  end
  -- Nobody waiting: nothing to dispatch (stale leases are the next caller's or the sweeper's; a
  -- media-stats job on a timed wake wakes by itself; the sweeper drops the lane from its index).
  if rcall('EXISTS', lane.wait, lane.gwait) == 0 then
    return out
  end
  out = concat({ out, dispatch(lane, nil) })
  settleIndex(lane)
  return out
end

return concat(eachJob(7, 5, function(lane, nextKey, id, final, gapped, shares)
  local dedupeKey = shares == '1' and nextKey() or nil
  return release(lane, id, final == '1', gapped, dedupeKey)
end))
