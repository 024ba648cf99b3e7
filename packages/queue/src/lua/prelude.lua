-- Shared by every lane script. A lane is one connected account's schedule:
--   run    ZSET  jobId -> lease deadline (ms): jobs granted a slot (running or about to)
--   wait   LIST  jobIds waiting for a slot, FIFO
--   gwait  LIST  jobIds of the gapped operation (chat media stats) waiting
--   state  HASH  next (earliest start by rate), pause (429 until), last (actual start of the
--                latest gapped call; lastBy, lastPrev: its job and the last it replaced, until a
--                release or a touch), plan (planned start of the latest granted gapped call),
--                gwake (the gapped job on a slot-less timed wait) and gwakeAt (when it wakes)
--   jobs   ZSET  jobId -> enqueue time: every unfinished job of the lane (backlog bound)
-- KEYS[1] is the lanes index (ZSET lane -> when the sweeper should look at it, crash recovery), then
-- five keys per lane the script touches, in the order above less the index: run, wait, gwait, state,
-- jobs. A script may touch several lanes (one entry per job of a batch): `useLane(i, lane)` points
-- the names below at the i-th (0-based) lane's keys.
-- ARGV[1] job key prefix (BullMQ's "<prefix>:operations:"), ARGV[2] concurrency, ARGV[3] interval
-- (ms between starts), ARGV[4] gap (ms, safety margin included), ARGV[5] lease (ms), ARGV[6] hold
-- (ms a slot may wait for a gapped job), then the script's own arguments from ARGV[7].
--
-- A job id of the form "<batch>-<n>" is the n-th request of the batch job <batch> (several reads
-- granted together travel as one BullMQ job); such a request moved out of its batch becomes a job
-- of its own under the same id.
--
-- Time is Redis's own clock, so API and worker hosts whose clocks differ still agree on gaps,
-- pacing and leases. BullMQ job keys (`<prefix>:operations:<id>`, its `:lock`, the delayed set) are
-- read, never written: they share the queue's hash tag, so these scripts stay in one Cluster slot.
local rcall = redis.call
local LANES = KEYS[1]
local RUN, WAIT, GWAIT, STATE, JOBS, lane
local jobPrefix = ARGV[1]
local concurrency = tonumber(ARGV[2])
local interval = tonumber(ARGV[3])
local gap = tonumber(ARGV[4])
local lease = tonumber(ARGV[5])
local hold = tonumber(ARGV[6])
local clock = rcall('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)

local function useLane(i, laneId)
  local k = 1 + i * 5
  RUN, WAIT, GWAIT, STATE, JOBS = KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], KEYS[k + 4], KEYS[k + 5]
  lane = laneId
end

-- A call for several jobs (or lanes): from ARGV[first], `stride` arguments per job, the first of
-- them its lane. Points the lane names at each job's lane in turn and calls fn with the job's other
-- arguments; returns fn's results in order.
local function eachJob(first, stride, fn)
  local results = {}
  for i = 0, (#ARGV - first + 1) / stride - 1 do
    local a = first + i * stride
    useLane(i, ARGV[a])
    results[i + 1] = fn(unpack(ARGV, a + 1, a + stride - 1))
  end
  return results
end

-- Joins lists of wakes ({id, delay, ...}) into one.
local function concat(lists)
  local out = {}
  for _, list in ipairs(lists) do
    for _, v in ipairs(list) do table.insert(out, v) end
  end
  return out
end

local function num(value)
  return tonumber(value) or 0
end

local function batchOf(id)
  return string.match(id, '^(.+)%-%d+$')
end

-- The BullMQ job key that holds the request: its own job, or its batch's.
local function jobKeyOf(id)
  if rcall('EXISTS', jobPrefix .. id) == 1 then return jobPrefix .. id end
  local batch = batchOf(id)
  if batch and rcall('EXISTS', jobPrefix .. batch) == 1 then return jobPrefix .. batch end
  return nil
end

local function exists(id)
  return rcall('EXISTS', jobPrefix .. id) == 1
end

-- The queue's own keys beside BullMQ's (`{prefix:q}:`): a write's write-ahead mark `sent:<jobId>`
-- (the worker's ledger), and `cancel:<jobId>`, the mark of a request its caller cancelled before it
-- ran (`cancel`, the one script that writes outside its lanes' keys), which fails it at its claim.
local queueBase = (string.gsub(jobPrefix, 'operations:$', ''))

local function cancelKey(id)
  return queueBase .. 'cancel:' .. id
end

local function cancelled(id)
  return rcall('EXISTS', cancelKey(id)) == 1
end

-- The request's job (or its batch) is running: BullMQ holds its lock.
local function locked(id)
  if rcall('EXISTS', jobPrefix .. id .. ':lock') == 1 then return true end
  local batch = batchOf(id)
  return batch ~= nil and rcall('EXISTS', jobPrefix .. batch .. ':lock') == 1
end

-- Recently admitted: its adder may not have added it to BullMQ yet.
local function recent(id)
  local since = rcall('ZSCORE', JOBS, id)
  return since and now - tonumber(since) < lease
end

local function isGapped(id)
  local data = rcall('HGET', jobPrefix .. id, 'data')
  return data and string.find(data, '"gapped":true', 1, true) ~= nil
end

-- A lease past its deadline whose job holds no BullMQ lock belongs to a job that is not running:
-- its worker died, or the job vanished. The slot is freed; a job still parked in BullMQ goes back to
-- the front of its wait list so it is dispatched again (its claim re-checks every rule). A gapped job
-- on a timed wake that never came back (never added, or lost) stops blocking the gapped list.
local function cleanup()
  local stale = rcall('ZRANGEBYSCORE', RUN, '-inf', now)
  for _, id in ipairs(stale) do
    if locked(id) then
      rcall('ZADD', RUN, now + lease, id)
    else
      rcall('ZREM', RUN, id)
      if exists(id) and rcall('ZSCORE', jobPrefix .. 'delayed', id) then
        rcall('LPUSH', isGapped(id) and GWAIT or WAIT, id)
      end
    end
  end
  local gwake = rcall('HGET', STATE, 'gwake')
  if gwake and gwake ~= '' and now > num(rcall('HGET', STATE, 'gwakeAt')) + lease then
    local alive = exists(gwake)
    rcall('HDEL', STATE, 'gwake', 'gwakeAt')
    if alive and rcall('ZSCORE', jobPrefix .. 'delayed', gwake) then
      rcall('LPUSH', GWAIT, gwake)
    elseif not alive then
      rcall('ZREM', JOBS, gwake)
    end
  end
end

-- A login lane (`login:<hash of a username>`: connections, which may name any username anyone
-- tries) keeps its state only while it holds something back (pacing, a 429 pause), and a minute.
local function expireLoginState(untilMs)
  if lane:sub(1, 6) == 'login:' then rcall('PEXPIREAT', STATE, untilMs + 60000) end
end

local function readState()
  local s = rcall('HMGET', STATE, 'next', 'pause', 'last', 'plan', 'gwake')
  return { next = num(s[1]), pause = num(s[2]), last = num(s[3]), plan = num(s[4]), gwake = s[5] or '' }
end

-- `index`: put the lane in the sweeper's index. Only a lane with jobs waiting needs it (a stale
-- lease harms nobody until a job waits for its slot, and the admission that queues that job
-- indexes the lane), so admit's fast path leaves it out.
local function grant(id, start, st, gapped, index)
  rcall('ZADD', RUN, start + lease, id)
  st.next = start + interval
  rcall('HSET', STATE, 'next', st.next)
  expireLoginState(st.next)
  if gapped then
    st.plan = start
    rcall('HSET', STATE, 'plan', start)
  end
  if index ~= false then rcall('ZADD', LANES, start + lease, lane) end
end

-- The first job of a wait list that BullMQ holds. The API admits a job before adding it, so a head
-- that does not exist yet is normally on its way (its adder kicks the lane after adding it); one
-- missing for longer than a lease never will be, and is dropped.
local function headOf(list, self)
  while true do
    local head = rcall('LINDEX', list, 0)
    if not head or head == self or exists(head) then return head end
    if recent(head) then return nil end
    rcall('LPOP', list)
    rcall('ZREM', JOBS, head)
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
-- `self` is the job being admitted, which BullMQ does not hold yet.
local function dispatch(self)
  cleanup()
  local out = {}
  local st = readState()
  local free = concurrency - rcall('ZCARD', RUN)
  local function gapReady()
    return gapEnd(st.last, st.plan)
  end
  if st.gwake == '' then
    local head = headOf(GWAIT, self)
    if head and gapReady() > math.max(now, st.next, st.pause) + hold then
      rcall('LPOP', GWAIT)
      rcall('HSET', STATE, 'gwake', head, 'gwakeAt', gapReady())
      st.gwake = head
      table.insert(out, head)
      table.insert(out, gapReady() - now)
    end
  end
  while free > 0 do
    local ready = math.max(now, st.next, st.pause)
    local pick, gapped, start = nil, false, ready
    local general = headOf(WAIT, self)
    local paced = nil
    if st.gwake == '' then paced = headOf(GWAIT, self) end
    if paced then
      local gapStart = math.max(ready, gapReady())
      if gapStart <= ready + hold and (not general or num(rcall('ZSCORE', JOBS, paced)) <= num(rcall('ZSCORE', JOBS, general))) then
        pick, gapped, start = paced, true, gapStart
      end
    end
    if not pick and general then pick = general end
    if not pick then break end
    rcall('LPOP', gapped and GWAIT or WAIT)
    grant(pick, start, st, gapped)
    table.insert(out, pick)
    table.insert(out, start - now)
    free = free - 1
  end
  return out
end

-- A lane with nothing running or waiting leaves the sweeper's index.
local function settleIndex()
  -- Empty sets and lists do not exist: one EXISTS asks whether anything runs or waits.
  if rcall('EXISTS', RUN, WAIT, GWAIT) == 0 and (rcall('HGET', STATE, 'gwake') or '') == '' then
    rcall('ZREM', LANES, lane)
  else
    local first = rcall('ZRANGE', RUN, 0, 0, 'WITHSCORES')
    rcall('ZADD', LANES, first[2] or (now + lease), lane)
  end
end

-- Every trace of a job leaves its lane (a slot, its place in the backlog and in a wait list, the
-- timed wake, its sharing key), and the lane dispatches. Returns the wakes.
local function leave(id, dedupeKey)
  rcall('ZREM', RUN, id)
  rcall('ZREM', JOBS, id)
  rcall('LREM', WAIT, 0, id)
  rcall('LREM', GWAIT, 0, id)
  if rcall('HGET', STATE, 'gwake') == id then rcall('HDEL', STATE, 'gwake', 'gwakeAt') end
  if dedupeKey ~= '' and rcall('GET', dedupeKey) == id then rcall('DEL', dedupeKey) end
  local out = dispatch('')
  settleIndex()
  return out
end
