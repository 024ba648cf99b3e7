--[[
  health-set: writes fields of an account's health hash, only while the account's record exists (a
  late note never brings a disconnected account back: account-health.ts).

  Input:
    KEYS[1]   the account's record
    KEYS[2]   its health hash
    ARGV      field, value, field, value, ...

  Output: 1 when written, 0 when the account is gone.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], unpack(ARGV))
return 1
