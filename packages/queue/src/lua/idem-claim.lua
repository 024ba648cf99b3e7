--[[
  idem-claim: claims a caller's Idempotency-Key for a request, or says which job answers it
  (idempotency.ts). Joined after bullmq.lua (scripts.ts).

  A record is `<fingerprint> <jobId> <claimed at, ms>`; a request matches it when one of its
  fingerprints (one per encryption key) is the record's. Redis's clock, so API processes' clocks
  cannot disagree about a record's age. The job's keys are in the record's slot (the queue's tag),
  and so is its write-ahead mark, which stays while its write may have been applied.
  - The job exists: its answer is replayed, unless it failed for good with nothing applied (the
    platform unavailable after the retries, or refusing the account's session, and no mark): then
    the repeat is what the failure asked for, and runs as a new job.
  - No job, claimed within the window: its adder is at work.
  - No job after the window, no mark: never added (its adder died, or hangs): the key is taken over
    under the same job id, so that an add landing late after all adds nothing (BullMQ ignores an
    existing id).
  - No job and a mark: it ran and was removed early (a clock ahead, eviction): its write may have
    been applied, and nothing may send it again.
  - No job, and its cancel mark (which outlives the record): its caller cancelled it, and a repeat
    is told so (its id taken over would run it after all).

  Input:
    KEYS[1]   the key's record (keys.ts `idempotency`)
    KEYS[2]   BullMQ's failed set of the queue (keys.ts `failed`)
    ARGV[1]   BullMQ's key prefix of the queue's jobs (bullmq.lua)
    ARGV[2]   the job id offered for the request
    ARGV[3]   the record's lifetime (s)
    ARGV[4]   the window (ms): a claim whose job does not exist yet is its adder's this long
    ARGV[5]   what a job's write-ahead mark is named from (keys.ts `sentPrefix`): the job may be the
              record's
    ARGV[6]   the same for a job's cancel mark (keys.ts `cancelledPrefix`)
    ARGV[7..] the request's fingerprints; the first is recorded

  Output: {"new", jobId, fresh (1: the key named no job before)} | {"replay", jobId} | {"pending"} |
          {"lost", jobId} | {"cancelled", jobId} | {"mismatch"}
]]
local rcall = redis.call
local t = rcall('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local recordKey, failedSet = KEYS[1], KEYS[2]
local jobId, ttl, window, sentPrefix, cancelledPrefix = ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5], ARGV[6]
local FINGERPRINTS = 7
local fresh = 1
local record = rcall('GET', recordKey)
if record then
  local fingerprint, claimed, at = string.match(record, '^(%x+) (%S+) (%d+)$')
  local same = false
  for i = FINGERPRINTS, #ARGV do
    if fingerprint == ARGV[i] then same = true end
  end
  if not same then return { 'mismatch' } end
  local marked = rcall('EXISTS', sentPrefix .. claimed) == 1
  if jobExists(claimed) then
    local unapplied = false
    if not marked and jobIn(failedSet, claimed) then
      local code = string.match(jobFailedReason(claimed), '^([A-Z_]+)[ :]')
      unapplied = code == 'UPSTREAM_UNAVAILABLE' or code == 'REAUTH_REQUIRED'
    end
    if not unapplied then return { 'replay', claimed } end
  elseif now - tonumber(at) < window then
    return { 'pending' }
  elseif marked then
    return { 'lost', claimed }
  elseif rcall('EXISTS', cancelledPrefix .. claimed) == 1 then
    return { 'cancelled', claimed }
  else
    jobId = claimed
  end
  fresh = 0
end
rcall('SET', recordKey, ARGV[FINGERPRINTS] .. ' ' .. jobId .. ' ' .. now, 'EX', ttl)
return { 'new', jobId, fresh }
