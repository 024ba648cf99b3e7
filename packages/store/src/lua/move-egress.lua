--[[
  move-egress: moves an account to another proxy if it still leaves through the one named: another
  process may have moved it first (accounts.ts `moveEgress`).

  Input:
    KEYS[1]   the account's record
    ARGV[1]   the proxy id it is moved from
    ARGV[2]   the proxy id it is moved to ('' for none)
    ARGV[3]   that proxy's label
    ARGV[4]   now (Unix ms)

  Output: the proxy id the account leaves through now; false once it is disconnected.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local current = redis.call('HGET', KEYS[1], 'egressId') or ''
if current ~= ARGV[1] then return current end
redis.call('HSET', KEYS[1], 'egressId', ARGV[2], 'egressLabel', ARGV[3], 'updatedAt', ARGV[4])
return ARGV[2]
