-- cancel: its caller cancels a request that has not started (DELETE /jobs/{id}). Only a job that
-- holds no slot and no BullMQ lock may be: one waiting in its lane (parked, or on a timed wake), in a
-- retry's backoff, or woken and not claimed yet. It leaves the lane (its place in a wait list, the
-- backlog, its sharing key) and is marked, so that its claim, whenever BullMQ hands it out, fails it
-- without a platform call (a `requeue` after a park wakes it for that); the caller wakes it at once.
-- A job granted a slot (running, or about to start) is refused: its platform call may be on its way.
-- ARGV[7] the lane, ARGV[8] jobId, ARGV[9] dedupe key or "", ARGV[10] the mark's lifetime (s).
-- Returns {"cancelled", jobId, 0, wakes...} | {"already"} | {"refused"}.
useLane(0, ARGV[7])
local id, dedupeKey, ttl = ARGV[8], ARGV[9], ARGV[10]
if cancelled(id) then return { 'already' } end
-- A request still in its batch runs with it; one that moved out has a job of its own.
if rcall('ZSCORE', RUN, id) or not rcall('ZSCORE', JOBS, id) or not exists(id)
  or rcall('EXISTS', jobPrefix .. id .. ':lock') == 1 then
  return { 'refused' }
end
rcall('SET', cancelPrefix .. id, now, 'EX', ttl)
rcall('ZREM', JOBS, id)
rcall('LREM', WAIT, 0, id)
rcall('LREM', GWAIT, 0, id)
if rcall('HGET', STATE, 'gwake') == id then rcall('HDEL', STATE, 'gwake', 'gwakeAt') end
if dedupeKey ~= '' and rcall('GET', dedupeKey) == id then rcall('DEL', dedupeKey) end
local out = dispatch('')
settleIndex()
return concat({ { 'cancelled', id, 0 }, out })
