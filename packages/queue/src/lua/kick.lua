-- kick: dispatch without any other change (after a parked job was added, or by the sweeper).
-- Returns {id, delay, ...}.
local out = dispatch('')
if rcall('ZCARD', RUN) == 0 and rcall('LLEN', WAIT) == 0 and rcall('LLEN', GWAIT) == 0 then
  rcall('ZREM', LANES, lane)
else
  local first = rcall('ZRANGE', RUN, 0, 0, 'WITHSCORES')
  rcall('ZADD', LANES, first[2] or (now + lease), lane)
end
return out
