--[[
  mark-reauth: marks an account as needing a new login, only if its session is still the one a
  failed re-login started from: a connection made meanwhile is kept (accounts.ts
  `markReauthRequired`).

  Input:
    KEYS[1]   the account's record
    ARGV[1]   now (Unix ms)
    ARGV[2]   the sealed session the re-login started from

  Output: 1 when marked, else 0. `statusAt` notes since when, for the account's status.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if (redis.call('HGET', KEYS[1], 'session') or '') ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[1], 'session')
redis.call('HSET', KEYS[1], 'status', 'reauth_required', 'updatedAt', ARGV[1], 'statusAt', ARGV[1])
return 1
