--[[
  cancel: its caller cancels a request that has not run (DELETE /jobs/{id}). Only a job that BullMQ
  holds in its delayed set may be: no worker has it, so no platform call of it can be on its way
  (parked in a wait list, on a media-stats timed wake, granted a slot for a later start by pacing or
  a 429 pause, in a retry's backoff). A job BullMQ has handed out or is about to (waiting, active,
  a stalled one whose worker died), a request still inside its batch and a write with a write-ahead
  mark are refused. The job leaves its lane (`leave`: a granted slot goes to the next one waiting,
  with the start it was granted for, so that a cancelled backlog costs the lane no pacing) and is
  marked, so that its claim, whenever BullMQ hands it out, fails it without a platform call
  (a `requeue` after a park wakes it for that); the caller wakes it at once. The one lane script
  that writes outside its lane's keys (the mark).

  Input:
    KEYS[1..2], ARGV[1..6]  prelude.lua
    KEYS[3..]  the lane's keys (lane.lua), then the job's cancel mark (keys.ts `cancelled`), its
               write-ahead mark (keys.ts `sent`), and its sharing key (keys.ts `lane(…).dedupe`)
               when it has one
    ARGV[7]    the lane
    ARGV[8]    jobId
    ARGV[9]    the cancel mark's lifetime (s)
    ARGV[10]   shares ("1": its sharing key follows the marks, "0": it has none)
    ARGV[11]   gapped ("1"/"0", or "" when not known)

  Output: {"cancelled", jobId, 0, wakes...} | {"already"} | {"refused"}
]]
local nextKey = keyReader()
local lane = readLane(ARGV[7], nextKey)
local cancelKey, sentKey = nextKey(), nextKey()
local dedupeKey = ARGV[10] == '1' and nextKey() or nil
local id, ttl = ARGV[8], ARGV[9]
if marked(cancelKey) then return { 'already' } end
if not jobIn(BULLMQ_DELAYED, id) or marked(sentKey) then
  return { 'refused' }
end
rcall('SET', cancelKey, now, 'EX', ttl)
-- A grant for a later start (pacing) hands that start on; its lease is the start plus `lease`.
local held = rcall('ZSCORE', lane.run, id)
local from = held and tonumber(held) - lease or nil
return concat({ { 'cancelled', id, 0 }, leave(lane, id, dedupeKey, gappedArg(ARGV[11]), from) })
