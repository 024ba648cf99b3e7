--[[
  ledger-mark: marks a write just before it leaves, for the attempt sending it (ledger.ts): set if
  absent, and only while the attempt still holds its job's BullMQ lock. An attempt whose lock lapsed
  (an event loop stalled past it, a partition) may have had its job handed to another worker by the
  stalled-job check, or will: it must not send.

  Input:
    KEYS[1]   the write's mark (keys.ts `sent`)
    KEYS[2]   the job's BullMQ lock; absent for a job run without a lock
    ARGV[1]   the attempt's token
    ARGV[2]   the mark's lifetime (s)
    ARGV[3]   the lock token the attempt holds

  Output: 1 when the mark is the attempt's (new, or already its own), 0 when another attempt's, -1
  when the attempt no longer holds the job's lock.
]]
if KEYS[2] and redis.call('GET', KEYS[2]) ~= ARGV[3] then return -1 end
local owner = redis.call('GET', KEYS[1])
if not owner then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
  return 1
end
if owner == ARGV[1] then return 1 end
return 0
