-- redis-lua: set an item's hot counters to MySQL's, only if nothing changed them since the caller looked
-- (seq unchanged) and no order is pending. Called when the item is quiet, so that Redis and MySQL converge.
-- KEYS[1] stock hash   KEYS[2] orders stream
-- ARGV[1] expected seq   ARGV[2] stock   ARGV[3] available   ARGV[4] reserved   ARGV[5] sold
-- ARGV[6] the item's MySQL version those counters were read at (becomes 'wver')
-- ARGV[7] the units-back channel (see transition.lua): the correction may give units back
-- ARGV[8] ms a 'taking' mark (set_stock.lua: a stock set took units and waits for its MySQL commit, which MySQL's
--         counters do not show yet) keeps the item from being corrected; older marks are of a stock set that died
--         (absent: 60000)
-- Returns 1 when the counters were set, 0 when they changed meanwhile or a stock set is under way (the next round
-- looks again).
if redis.call('HGET', KEYS[1], 'seq') ~= ARGV[1] or redis.call('XLEN', KEYS[2]) > 0 then
  return 0
end
local taking = redis.call('HGET', KEYS[1], 'taking')
if taking then
  local now = redis.call('TIME')
  local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
  if nowMs - tonumber(string.match(taking, ' (%d+)$') or '0') < tonumber(ARGV[8] or '60000') then
    return 0
  end
  redis.call('HDEL', KEYS[1], 'taking')
end
redis.call('HSET', KEYS[1], 'stock', ARGV[2], 'available', ARGV[3], 'reserved', ARGV[4], 'sold', ARGV[5],
  'wver', ARGV[6])
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('PUBLISH', ARGV[7], KEYS[1] .. ' ' .. string.format('%d', seq))
return 1
