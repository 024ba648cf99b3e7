--[[
  bullmq.lua: every read of BullMQ's own keys, in one place. The scripts only read them (BullMQ's
  scripts own them) and only through the functions below; a BullMQ upgrade that moves a key or a
  field changes this file and nothing else. Joined before the script's own code (scripts.ts), and
  standalone: it needs nothing from the other includes.

  Input, in every script that includes this file:
    ARGV[1] BullMQ's key prefix of the lanes' queue (keys.ts `jobPrefix`: `{p:q}:operations:`, or
            `{p:q}:webhooks:` for the webhook endpoints' lanes):
            a job's hash is <prefix><id>, its lock <prefix><id>:lock. Jobs are named from it because
            their ids are found in Redis (wait lists, leases, records), not known to the caller.
  BullMQ's sets a script reads (`delayed`, `failed`) are that script's own KEYS, handed to `jobIn`.

  A job id of the form "<batch>-<n>" is the n-th request of the batch job <batch> (several reads
  granted together travel as one BullMQ job); such a request moved out of its batch becomes a job
  of its own under the same id. The functions named "request…" look at both. (Webhook deliveries
  have no batches: a delivery id that ends like a request's names a batch job that does not exist.)
]]
local bullmqJobPrefix = ARGV[1]

-- BullMQ's hash of a job.
local function jobKey(id)
  return bullmqJobPrefix .. id
end

local function batchOf(id)
  return string.match(id, '^(.+)%-%d+$')
end

-- BullMQ holds a job of this id (added, and not removed yet).
local function jobExists(id)
  return redis.call('EXISTS', bullmqJobPrefix .. id) == 1
end

-- The job whose hash is `key` has ended (completed, or failed for good).
local function jobFinished(key)
  return redis.call('HEXISTS', key, 'finishedOn') == 1
end

-- The job is in one of BullMQ's sorted sets of the queue (`delayed`, `failed`: the script's KEYS).
local function jobIn(set, id)
  return redis.call('ZSCORE', set, id) ~= false
end

-- Why the job failed: its latest attempt's `CODE: message`, or ''.
local function jobFailedReason(id)
  return redis.call('HGET', bullmqJobPrefix .. id, 'failedReason') or ''
end

-- The hash that holds the request: its own job's, else its batch's; nil when neither exists.
local function requestJobKey(id)
  if jobExists(id) then return jobKey(id) end
  local batch = batchOf(id)
  if batch and jobExists(batch) then return jobKey(batch) end
  return nil
end

-- The request's job (or its batch) is running: a worker holds its BullMQ lock.
local function requestLocked(id)
  if redis.call('EXISTS', bullmqJobPrefix .. id .. ':lock') == 1 then return true end
  local batch = batchOf(id)
  return batch ~= nil and redis.call('EXISTS', bullmqJobPrefix .. batch .. ':lock') == 1
end
