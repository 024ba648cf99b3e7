-- forget: the account was disconnected; its lane's keys go. A lane with unfinished jobs keeps them
-- until those end (they fail: the account is gone); its state then expires by itself.
-- ARGV[7] the lane. Returns 1 when the keys were deleted, 0 when they wait for the lane's jobs.
useLane(0, ARGV[7])
if rcall('ZCARD', JOBS) > 0 then
  rcall('PEXPIRE', STATE, lease * 10)
  return 0
end
rcall('DEL', RUN, WAIT, GWAIT, STATE, JOBS)
rcall('ZREM', LANES, lane)
return 1
