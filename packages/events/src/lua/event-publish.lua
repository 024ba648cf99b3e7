--[[
  event-publish: stores an event once per id: appends it to the tenant's stream, trimmed to the retention
  by MINID, and marks its id, in one step (one slot: the tenant's tag; log.ts).

  Input:
    KEYS[1]   the tenant's stream
    KEYS[2]   the event id's mark (the stream id, with `|f` once fanned out)
    ARGV[1]   the event (JSON)
    ARGV[2]   the retention (ms)
    ARGV[3]   the oldest stream id kept (now − retention, ms)

  Output: {1, stream id} when stored now, {0, mark} when the id was seen.
]]
local seen = redis.call('GET', KEYS[2])
if seen then return {0, seen} end
local id = redis.call('XADD', KEYS[1], 'MINID', '~', ARGV[3], '*', 'e', ARGV[1])
redis.call('SET', KEYS[2], id, 'PX', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {1, id}
