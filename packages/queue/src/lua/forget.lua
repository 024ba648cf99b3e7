-- forget: a service account was disconnected. The lane is its platform account's, which other
-- service accounts may share (another tenant's, or the same account connected again), so only what
-- is empty goes: with no unfinished job left, the lane's slots, wait lists and backlog keys and its
-- sweeper entry. Its state (rate pacing, 429 pause, the last gapped call) stays, small and bounded by
-- the platform accounts ever connected: dropping it would let a new connection call at once.
-- ARGV[7] the lane. Returns 1 when keys were deleted, 0 when the lane still has jobs.
useLane(0, ARGV[7])
if rcall('ZCARD', JOBS) > 0 then return 0 end
rcall('DEL', RUN, WAIT, GWAIT, JOBS)
rcall('ZREM', LANES, lane)
return 1
