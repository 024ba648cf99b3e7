--[[
  idem-release: gives a caller's Idempotency-Key back when the request it was claimed for was
  refused: only its own claim's record, and only while its job does not exist (idempotency.ts).
  Joined after bullmq.lua (scripts.ts).

  Input:
    KEYS[1]   the key's record (keys.ts `idempotency`)
    ARGV[1]   BullMQ's key prefix of the queue's jobs (bullmq.lua)
    ARGV[2]   the job id of the claim given back

  Output: 1 when the record was deleted, else 0.
]]
local record = redis.call('GET', KEYS[1])
if record and string.match(record, '^%x+ (%S+) ') == ARGV[2] and not jobExists(ARGV[2]) then
  return redis.call('DEL', KEYS[1])
end
return 0
