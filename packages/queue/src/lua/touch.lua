-- touch: a gapped job is about to send another request (a repeat after a re-login): the gap to the
-- next gapped call is measured from this one.
-- ARGV[7] the lane.
useLane(0, ARGV[7])
rcall('HSET', STATE, 'last', now)
-- A call went out: no release may give this gap back.
rcall('HDEL', STATE, 'lastBy', 'lastPrev')
return 1
