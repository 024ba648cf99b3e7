--[[
  key-change: applies a guarded change of an API key (api-keys.ts `guarded`) only while the keys'
  version is still the one its checks read, and moves the version. The check WATCH would make, but
  in the script: a WATCH belongs to a connection, and the store's connection is shared by every
  request of the process (another's EXEC or UNWATCH would drop it).

  Input:
    KEYS[1]   the keys' version
    KEYS[2]   the key's record
    KEYS[3]   the key-id index
    ARGV[1]   the version read ('' when there was none)
    ARGV[2]   'update' or 'remove'
    ARGV[3]   the key id
    ARGV[4..] update: the record's fields, name then value

  Output: 1 when applied, 0 when the version moved meanwhile (read again and retry).
]]
if (redis.call('GET', KEYS[1]) or '') ~= ARGV[1] then return 0 end
redis.call('INCR', KEYS[1])
if ARGV[2] == 'remove' then
  redis.call('DEL', KEYS[2])
  redis.call('HDEL', KEYS[3], ARGV[3])
else
  redis.call('HSET', KEYS[2], unpack(ARGV, 4))
end
return 1
