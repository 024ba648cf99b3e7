--[[
  extend-hold: keeps a hold for longer, only while it is still its owner's (holds.ts).

  Input:
    KEYS[1]   the hold
    ARGV[1]   the owner's token
    ARGV[2]   its new lifetime (ms)

  Output: 1 when extended, else 0.
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
