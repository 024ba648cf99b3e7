--[[
  save-session: stores an account's platform session, only if the account still exists (a
  disconnect may have raced the worker: accounts.ts `saveSession`).

  Input:
    KEYS[1]   the account's record
    ARGV[1]   the sealed session
    ARGV[2]   now (Unix ms)

  Output: 1 when saved, 0 when the account is gone.
  Also notes when (sessionAt) and that a re-login obtained it (reloginAt), for the account's status.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'session', ARGV[1], 'status', 'connected', 'updatedAt', ARGV[2], 'sessionAt', ARGV[2],
  'reloginAt', ARGV[2])
return 1
