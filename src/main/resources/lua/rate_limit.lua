-- Rate limit (GCRA, the generic cell rate algorithm): one request may pass if the key's theoretical arrival time
-- (TAT) is not further ahead of now than the burst allows. Judged by Redis's clock, so every pod shares one limit.
-- KEYS[1] fs:rate:<kind>:<who>   string: the TAT in ms (expires when it is in the past: an idle key costs nothing)
-- ARGV[1] emission interval in ms (1000 / rate per second)   ARGV[2] burst (units that may pass at once, >= 1)
-- ARGV[3] cost: the units this request counts for (a purchase's units, a cart's units summed), >= 1
-- Returns {1, 0} when the request passes (and counts it), {0, ms until one would pass} when it does not.
-- A request costing more than the burst passes only when the key is idle (its TAT not ahead of now) and then puts the
-- key that far ahead: a large cart is never refused for good, and its units are paid for by waiting afterwards.
local now = redis.call('TIME')
local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local interval = tonumber(ARGV[1])
local tat = math.max(tonumber(redis.call('GET', KEYS[1]) or '0'), nowMs)
local cost = tonumber(ARGV[3])
local passFrom = math.min(tat + interval * cost - interval * tonumber(ARGV[2]), tat)
if nowMs < passFrom then
  return {0, passFrom - nowMs}
end
tat = tat + interval * cost
redis.call('SET', KEYS[1], string.format('%d', tat), 'PX', string.format('%d', tat - nowMs))
return {1, 0}
