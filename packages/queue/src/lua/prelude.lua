--[[
  prelude.lua: the start of every lane script. scripts.ts joins prelude.lua, bullmq.lua, lane.lua
  and the script's own file into one script; the script's header says what it takes and returns.

  Input every lane script takes:
    KEYS[1]   the sweeper's index of lanes (keys.ts `lanes`: ZSET lane -> when it should look at the
              lane, crash recovery)
    KEYS[2]   BullMQ's delayed set of the queue (read only: bullmq.lua)
    KEYS[3..] the script's own, read in order with `keyReader`: for each lane (or job) it touches,
              that lane's keys (lane.lua, `readLane`), then the job's own keys
    ARGV[1]   BullMQ's key prefix of the queue's jobs (bullmq.lua)
    ARGV[2]   concurrency: slots per lane
    ARGV[3]   interval: ms between two starts of a lane
    ARGV[4]   gap: ms between two starts of the gapped operation (safety margin included)
    ARGV[5]   lease: ms a slot is held without its job's lock before it is reclaimed
    ARGV[6]   hold: ms a free slot may wait for a gapped job whose gap is about to end
    ARGV[7..] the script's own

  Time is Redis's own clock, so API and worker hosts whose clocks differ still agree on gaps,
  pacing and leases.
]]
local rcall = redis.call
local LANES = KEYS[1]
local BULLMQ_DELAYED = KEYS[2]
local concurrency = tonumber(ARGV[2])
local interval = tonumber(ARGV[3])
local gap = tonumber(ARGV[4])
local lease = tonumber(ARGV[5])
local hold = tonumber(ARGV[6])
local clock = rcall('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)

-- A function that hands out the script's own KEYS one after the other, from KEYS[3].
local function keyReader()
  local i = 2
  return function()
    i = i + 1
    return KEYS[i]
  end
end

-- A mark (a cancelled request's, a write's write-ahead mark) is set.
local function marked(key)
  return rcall('EXISTS', key) == 1
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
