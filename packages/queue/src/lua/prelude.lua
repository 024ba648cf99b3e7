-- Shared by every lane script. A lane is one connected account's schedule:
--   KEYS[1] run    ZSET  jobId -> lease deadline (ms): jobs granted a slot (running or about to)
--   KEYS[2] wait   LIST  jobIds waiting for a slot, FIFO
--   KEYS[3] gwait  LIST  jobIds of the gapped operation (chat media stats) waiting
--   KEYS[4] state  HASH  next (earliest start by rate), pause (429 until), last (actual start of the
--                        latest gapped call), plan (planned start of the latest granted gapped call),
--                        gwake (the gapped job on a slot-less timed wait, if any)
--   KEYS[5] jobs   ZSET  jobId -> enqueue time: every unfinished job of the lane (backlog bound)
--   KEYS[6] lanes  ZSET  lane -> when the sweeper should look at it (crash recovery)
-- ARGV[1] lane id, ARGV[2] now (ms), ARGV[3] job key prefix (BullMQ's "<prefix>:operations:"),
-- ARGV[4] concurrency, ARGV[5] interval (ms between starts), ARGV[6] gap (ms, safety margin included),
-- ARGV[7] lease (ms), ARGV[8] hold (ms a slot may wait for a gapped job), then script-specific ones.
--
-- BullMQ job keys (`<prefix>:operations:<id>` and its `:lock`) are read, never written: they share
-- the queue's hash tag, so these scripts stay within one Cluster slot.
local rcall = redis.call
local RUN, WAIT, GWAIT, STATE, JOBS, LANES = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local lane = ARGV[1]
local now = tonumber(ARGV[2])
local jobPrefix = ARGV[3]
local concurrency = tonumber(ARGV[4])
local interval = tonumber(ARGV[5])
local gap = tonumber(ARGV[6])
local lease = tonumber(ARGV[7])
local hold = tonumber(ARGV[8])

local function num(value)
  return tonumber(value) or 0
end

local function exists(id)
  return rcall('EXISTS', jobPrefix .. id) == 1
end

-- A lease past its deadline whose job holds no BullMQ lock belongs to a job that is not running:
-- its worker died, or the job vanished. The slot is freed; a job still parked in BullMQ goes back to
-- the front of the wait list so it is dispatched again (its claim re-checks every rule).
local function cleanup()
  local stale = rcall('ZRANGEBYSCORE', RUN, '-inf', now)
  for _, id in ipairs(stale) do
    if rcall('EXISTS', jobPrefix .. id .. ':lock') == 1 then
      rcall('ZADD', RUN, now + lease, id)
    else
      rcall('ZREM', RUN, id)
      if exists(id) and rcall('ZSCORE', jobPrefix .. 'delayed', id) then
        rcall('LPUSH', WAIT, id)
      end
    end
  end
end

local function readState()
  local s = rcall('HMGET', STATE, 'next', 'pause', 'last', 'plan', 'gwake')
  return { next = num(s[1]), pause = num(s[2]), last = num(s[3]), plan = num(s[4]), gwake = s[5] or '' }
end

local function grant(id, start, st, gapped)
  rcall('ZADD', RUN, start + lease, id)
  st.next = start + interval
  rcall('HSET', STATE, 'next', st.next)
  if gapped then
    st.plan = start
    rcall('HSET', STATE, 'plan', start)
  end
  rcall('ZADD', LANES, start + lease, lane)
end

-- Hands free slots to waiting jobs, oldest first, each at the earliest start that pacing, a 429
-- pause and (for the gapped operation) the gap allow. Returns {id, delay, id, delay, ...}: the caller
-- sets each job's BullMQ delay, so a job wakes exactly when it may start and never before. A gapped
-- job whose gap is far off gets a slot-less timed wake instead of holding a slot idle.
-- `self` is the job being admitted, which BullMQ does not hold yet.
-- The first job of a wait list that BullMQ holds. The API admits a job before adding it, so a head
-- that does not exist yet is normally on its way (its adder kicks the lane after adding it); one
-- missing for longer than a lease never will be, and is dropped.
local function headOf(list, self)
  while true do
    local head = rcall('LINDEX', list, 0)
    if not head or head == self or exists(head) then return head end
    local since = rcall('ZSCORE', JOBS, head)
    if since and now - tonumber(since) < lease then return nil end
    rcall('LPOP', list)
    rcall('ZREM', JOBS, head)
  end
end

local function dispatch(self)
  cleanup()
  local out = {}
  local st = readState()
  local free = concurrency - rcall('ZCARD', RUN)
  local function gapReady()
    local from = math.max(st.last, st.plan)
    if from == 0 then return 0 end
    return from + gap
  end
  if st.gwake == '' then
    local head = headOf(GWAIT, self)
    if head and gapReady() > math.max(now, st.next, st.pause) + hold then
      rcall('LPOP', GWAIT)
      rcall('HSET', STATE, 'gwake', head)
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
