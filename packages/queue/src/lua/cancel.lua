-- cancel: its caller cancels a request that has not run (DELETE /jobs/{id}). Only a job that BullMQ
-- holds in its delayed set may be: no worker has it, so no platform call of it can be on its way
-- (parked in a wait list, on a media-stats timed wake, granted a slot for a later start by pacing or
-- a 429 pause, in a retry's backoff). A job BullMQ has handed out or is about to (waiting, active,
-- a stalled one whose worker died), a request still inside its batch and a write with a write-ahead
-- mark are refused. The job leaves its lane (`leave`: a granted slot goes to the next one waiting)
-- and is marked, so that its claim, whenever BullMQ hands it out, fails it without a platform call
-- (a `requeue` after a park wakes it for that); the caller wakes it at once.
-- ARGV[7] the lane, ARGV[8] jobId, ARGV[9] dedupe key or "", ARGV[10] the mark's lifetime (s).
-- Returns {"cancelled", jobId, 0, wakes...} | {"already"} | {"refused"}.
useLane(0, ARGV[7])
local id, dedupeKey, ttl = ARGV[8], ARGV[9], ARGV[10]
if cancelled(id) then return { 'already' } end
if not rcall('ZSCORE', jobPrefix .. 'delayed', id) or rcall('EXISTS', queueBase .. 'sent:' .. id) == 1 then
  return { 'refused' }
end
rcall('SET', cancelKey(id), now, 'EX', ttl)
return concat({ { 'cancelled', id, 0 }, leave(id, dedupeKey) })
