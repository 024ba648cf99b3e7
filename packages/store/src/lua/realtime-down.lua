--[[
  realtime-down: the account's realtime connection closed, or an attempt to open it failed
  (account-health.ts `realtimeDown`). Closed since now, unless it was closed already (a retry that
  failed again keeps the time it went down); the reason is the latest. Only while the record exists.

  Input:
    KEYS[1]   the account's record
    KEYS[2]   its health hash (realtime-up.lua)
    ARGV[1]   now (Unix ms)
    ARGV[2]   why

  Output: 1 when written, 0 when the account is gone.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSETNX', KEYS[2], 'rtDownAt', ARGV[1])
redis.call('HSET', KEYS[2], 'rtDownWhy', ARGV[2])
return 1
