-- pause: the platform answered 429 for this account; nothing starts before ARGV[9] (ms).
local untilMs = tonumber(ARGV[9])
if untilMs > num(rcall('HGET', STATE, 'pause')) then
  rcall('HSET', STATE, 'pause', untilMs)
end
return 1
