--[[
  lane.lua: a lane, one connected platform account's schedule, and what the lane scripts do with it.
  A lane is a table, its name and its keys (keys.ts `LaneKeys`), read from the script's KEYS by
  `readLane` and passed to every function below; a script that touches several lanes (a group's
  admissions, a batch's claims) holds one table per lane. Its keys, in the order the KEYS give them:
    run    ZSET  jobId -> lease deadline (ms): jobs granted a slot (running or about to)
    wait   LIST  jobIds waiting for a slot, FIFO
    gwait  LIST  jobIds of the gapped operation (chat media stats) waiting
    state  HASH  next (earliest start by rate), pause (429 until; pauseWhy: why, pause.lua), last
                 (actual start of the latest gapped call; lastBy, lastPrev: its job and the last it
                 replaced, until a release or a touch), plan (planned start of the latest granted
                 gapped call), gwake (the gapped job on a slot-less timed wait) and gwakeAt (when it
                 wakes)
    jobs   ZSET  jobId -> enqueue time: every unfinished job of the lane (backlog bound)
    gjobs  SET   the gapped ones of `jobs`: admit adds a gapped job to both, and whatever takes a
                 job out of `jobs` takes it out of here (`unlist`)
  Needs prelude.lua and bullmq.lua before it.
]]

-- The lane named `name`, its keys the next ones `nextKey` (a `keyReader`) hands out.
local function readLane(name, nextKey)
  local lane = { name = name }
  lane.run = nextKey()
  lane.wait = nextKey()
  lane.gwait = nextKey()
  lane.state = nextKey()
  lane.jobs = nextKey()
  lane.gjobs = nextKey()
  return lane
end

-- A call for several jobs (or lanes): `stride` arguments per job from ARGV[first], the first of them
-- its lane's name; its KEYS, after the ones before it, start with its lane's keys. Calls
-- fn(lane, nextKey, <the job's other arguments>) for each job in turn, where `nextKey` hands out the
-- job's own KEYS after its lane's; returns fn's results in order.
local function eachJob(first, stride, fn)
  local nextKey = keyReader()
  local results = {}
  for i = 0, (#ARGV - first + 1) / stride - 1 do
    local a = first + i * stride
    local lane = readLane(ARGV[a], nextKey)
    results[i + 1] = fn(lane, nextKey, unpack(ARGV, a + 1, a + stride - 1))
  end
  return results
end

-- The job leaves the lane's backlog: `jobs`, and `gjobs` unless `gapped` is false (a job known not
-- to be gapped is not looked for there; nil: not known).
local function unlist(lane, id, gapped)
  rcall('ZREM', lane.jobs, id)
  if gapped ~= false then rcall('SREM', lane.gjobs, id) end
end

-- Recently admitted: its adder may not have added it to BullMQ yet.
local function recent(lane, id)
  local since = rcall('ZSCORE', lane.jobs, id)
  return since and now - tonumber(since) < lease
end

-- A lease past its deadline whose job holds no BullMQ lock belongs to a job that is not running:
-- its worker died, or the job vanished. The slot is freed; a job still parked in BullMQ goes back to
-- the front of its wait list so it is dispatched again (its claim re-checks every rule). A gapped job
-- on a timed wake that never came back (never added, or lost) stops blocking the gapped list.
local function cleanup(lane)
  local stale = rcall('ZRANGEBYSCORE', lane.run, '-inf', now)
  for _, id in ipairs(stale) do
    if requestLocked(id) then
      rcall('ZADD', lane.run, now + lease, id)
    else
      rcall('ZREM', lane.run, id)
      if jobExists(id) and jobIn(BULLMQ_DELAYED, id) then
        local gapped = rcall('SISMEMBER', lane.gjobs, id) == 1
        rcall('LPUSH', gapped and lane.gwait or lane.wait, id)
      end
    end
  end
  local gwake = rcall('HGET', lane.state, 'gwake')
  if gwake and gwake ~= '' and now > num(rcall('HGET', lane.state, 'gwakeAt')) + lease then
    local alive = jobExists(gwake)
    rcall('HDEL', lane.state, 'gwake', 'gwakeAt')
    if alive and jobIn(BULLMQ_DELAYED, gwake) then
      rcall('LPUSH', lane.gwait, gwake)
    elseif not alive then
      unlist(lane, gwake, true)
    end
  end
end

-- A login lane (`login:<hash of a username>`: connections, which may name any username anyone
-- tries) keeps its state only while it holds something back (pacing, a 429 pause), and a minute.
local function expireLoginState(lane, untilMs)
  if lane.name:sub(1, 6) == 'login:' then rcall('PEXPIREAT', lane.state, untilMs + 60000) end
end

-- A script's "gapped" argument when it may be unknown: "1", "0", or "" (nil: not known).
local function gappedArg(arg)
  if arg == '' then return nil end
  return arg == '1'
end

local function readState(lane)
  local s = rcall('HMGET', lane.state, 'next', 'pause', 'last', 'plan', 'gwake')
  return { next = num(s[1]), pause = num(s[2]), last = num(s[3]), plan = num(s[4]), gwake = s[5] or '' }
end

-- `index`: put the lane in the sweeper's index. Only a lane with jobs waiting needs it (a stale
-- lease harms nobody until a job waits for its slot, and the admission that queues that job
-- indexes the lane), so admit's fast path leaves it out.
local function grant(lane, id, start, st, gapped, index)
  rcall('ZADD', lane.run, start + lease, id)
  -- A start handed over from a cancelled grant (`dispatch`'s `from`) is behind `next`, which stays.
  st.next = math.max(st.next, start + interval)
  rcall('HSET', lane.state, 'next', st.next)
  expireLoginState(lane, st.next)
  if gapped then
    st.plan = start
    rcall('HSET', lane.state, 'plan', start)
  end
  if index ~= false then rcall('ZADD', LANES, start + lease, lane.name) end
end

-- The first job of a wait list (the lane's `wait` or `gwait`) that BullMQ holds. The API admits a
-- job before adding it, so a head that does not exist yet is normally on its way (its adder kicks
-- the lane after adding it); one missing for longer than a lease never will be, and is dropped.
-- `self` (or nil) is the job being admitted, which BullMQ does not hold yet.
local function headOf(lane, list, self)
  while true do
    local head = rcall('LINDEX', list, 0)
    if not head or head == self or jobExists(head) then return head end
    if recent(lane, head) then return nil end
    rcall('LPOP', list)
    unlist(lane, head, list == lane.gwait)
  end
end

-- When the next gapped call may start: a gap after the later of the latest gapped start and plan.
local function gapEnd(last, plan)
  local from = math.max(last, plan)
  if from == 0 then return 0 end
  return from + gap
end

-- Hands free slots to waiting jobs, oldest first, each at the earliest start that pacing, a 429
-- pause and (for the gapped operation) the gap allow. Returns {id, delay, id, delay, ...}: the caller
-- sets each job's BullMQ delay, so a job wakes exactly when it may start and never before. A gapped
-- job whose gap is far off gets a slot-less timed wake instead of holding a slot idle.
-- `self` (or nil) is the job being admitted, which BullMQ does not hold yet.
-- `from` (or nil): the start a cancelled grant leaves behind (not passed, no pause over it). Pacing
-- already spaced it from every other start, so the first job granted here takes it instead of
-- `next`, and a cancelled job costs the lane no interval (`next` does not move; it goes back to
-- `from` when nobody takes it and it was the latest grant).
local function dispatch(lane, self, from)
  cleanup(lane)
  local out = {}
  local st = readState(lane)
  local free = concurrency - rcall('ZCARD', lane.run)
  local function gapReady()
    return gapEnd(st.last, st.plan)
  end
  if st.gwake == '' then
    local head = headOf(lane, lane.gwait, self)
    if head and gapReady() > math.max(now, st.next, st.pause) + hold then
      rcall('LPOP', lane.gwait)
      rcall('HSET', lane.state, 'gwake', head, 'gwakeAt', gapReady())
      st.gwake = head
      table.insert(out, head)
      table.insert(out, gapReady() - now)
    end
  end
  if from and from < math.max(now, st.pause) then from = nil end
  while free > 0 do
    local ready = from or math.max(now, st.next, st.pause)
    local pick, gapped, start = nil, false, ready
    local general = headOf(lane, lane.wait, self)
    local paced = nil
    if st.gwake == '' then paced = headOf(lane, lane.gwait, self) end
    if paced then
      local gapStart = math.max(ready, gapReady())
      -- A handed-over start is taken exactly or not at all: a later one could come too close to the
      -- start granted after it.
      if
        gapStart <= ready + (from and 0 or hold)
        and (not general or num(rcall('ZSCORE', lane.jobs, paced)) <= num(rcall('ZSCORE', lane.jobs, general)))
      then
        pick, gapped, start = paced, true, gapStart
      end
    end
    if not pick and general then pick = general end
    if not pick then break end
    rcall('LPOP', gapped and lane.gwait or lane.wait)
    grant(lane, pick, start, st, gapped)
    table.insert(out, pick)
    table.insert(out, start - now)
    free = free - 1
    from = nil
  end
  -- Nobody took the handed-over start, and it was the latest grant: the rate's clock goes back to it.
  if from and st.next == from + interval then rcall('HSET', lane.state, 'next', from) end
  return out
end

-- A lane with nothing running or waiting leaves the sweeper's index.
local function settleIndex(lane)
  -- Empty sets and lists do not exist: one EXISTS asks whether anything runs or waits.
  if rcall('EXISTS', lane.run, lane.wait, lane.gwait) == 0 and (rcall('HGET', lane.state, 'gwake') or '') == '' then
    rcall('ZREM', LANES, lane.name)
  else
    local first = rcall('ZRANGE', lane.run, 0, 0, 'WITHSCORES')
    rcall('ZADD', LANES, first[2] or (now + lease), lane.name)
  end
end

-- Every trace of a job leaves its lane (a slot, its place in the backlog and in a wait list, the
-- timed wake, its sharing key `dedupeKey` if it has one), and the lane dispatches. `gapped`: as
-- `unlist` takes it; `from`: as `dispatch` takes it. Returns the wakes.
local function leave(lane, id, dedupeKey, gapped, from)
  rcall('ZREM', lane.run, id)
  unlist(lane, id, gapped)
  rcall('LREM', lane.wait, 0, id)
  rcall('LREM', lane.gwait, 0, id)
  if rcall('HGET', lane.state, 'gwake') == id then rcall('HDEL', lane.state, 'gwake', 'gwakeAt') end
  if dedupeKey and rcall('GET', dedupeKey) == id then rcall('DEL', dedupeKey) end
  local out = dispatch(lane, nil, from)
  settleIndex(lane)
  return out
end
