-- pause: the platform answered 429 for this account; nothing starts for ARGV[8] ms.
local untilMs = now + tonumber(ARGV[8])
if untilMs > num(rcall('HGET', STATE, 'pause')) then
  rcall('HSET', STATE, 'pause', untilMs)
end
return 1
