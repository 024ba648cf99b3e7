--[[
  heartbeat: records a worker's beat at Redis' clock and forgets workers silent for long; the set
  expires with the last beat (heartbeats.ts).

  Input:
    KEYS[1]   the workers' beats (worker id → last beat, Unix ms)
    ARGV[1]   the worker id
    ARGV[2]   how long beats are kept (ms)

  Output: none.
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
