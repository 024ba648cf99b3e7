--[[
  recent-beats: counts the workers that beat within a time, at the clock the beats were recorded
  with (heartbeats.ts).

  Input:
    KEYS[1]   the workers' beats (heartbeat.lua)
    ARGV[1]   how recent a beat counts (ms)

  Output: the number of such workers.
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZCOUNT', KEYS[1], now - tonumber(ARGV[1]), '+inf')
