--[[
  release-hold: deletes a hold only while it is still its owner's: one that lapsed and was taken by
  another owner stays (re-login locks, action windows, write marks: holds.ts).

  Input:
    KEYS[1]   the hold
    ARGV[1]   the owner's token

  Output: 1 when deleted, else 0.
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
