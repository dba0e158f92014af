-- redis-lua: create an item's hot stock from MySQL's counters, only where it does not exist. Never overwrites a
-- live item, never flushes anything. The held and users hashes were filled just before, under the item's lock.
-- KEYS[1] stock hash   KEYS[2] held hash   KEYS[3] users hash   KEYS[4] late hash (see settle_entries.lua)
-- ARGV[1] stock   ARGV[2] available   ARGV[3] reserved   ARGV[4] sold   ARGV[5] per-user limit
-- ARGV[6] the item's MySQL version in that snapshot ('wver': mirrored changes up to it are in the snapshot)
-- ARGV[7] the hot-stock generation the warming pod knows ('gen': a purchase by a pod of another generation finds
--         the item stale and rebuilds it, see purchase.lua)   ARGV[8] the units-back channel (see transition.lua)
-- ARGV[9] sale start (epoch ms; '0': none, and a bound is never 0, see purchase.lua)   ARGV[10] sale end (the same)
-- ARGV[11] paused ('1' or '0')
--         (the window as of ARGV[6]: 'salever'; lua/sale.lua applies newer ones)
-- ARGV[12] the item's reservation TTL in seconds ('ttl', 0: the service's default; fixed when the item is created)
-- ARGV[13] retired ('1' or '0'; absent: '0'): the item sells no more (purchase.lua; lua/sale.lua applies newer ones)
-- 'seq' starts at Redis's clock in microseconds, so that it only grows, across rebuilds too (pods cache by it).
-- The new hot stock gets a fresh 'epoch' (Redis's clock): orders acknowledged under another epoch and committed
-- after the snapshot are taken in when their commit settles, or here from the late hash if that came first.
-- Returns 1 when created, 0 when the item was warm already.
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
local now = redis.call('TIME')
local wver = tonumber(ARGV[6])
local available = tonumber(ARGV[2])
local reserved = tonumber(ARGV[3])
local limit = tonumber(ARGV[5])
local late = redis.call('HGETALL', KEYS[4])
for i = 1, #late, 2 do
  local user, quantity, version = string.match(late[i + 1], '^(%S+) (%d+) (%d+)$')
  quantity = tonumber(quantity)
  if tonumber(version) > wver and redis.call('HEXISTS', KEYS[2], late[i]) == 0 then
    available = available - quantity
    reserved = reserved + quantity
    redis.call('HSET', KEYS[2], late[i], user .. ' ' .. quantity)
    if limit > 0 then
      redis.call('HINCRBY', KEYS[3], user, quantity)
    end
  end
end
redis.call('DEL', KEYS[4])
local seq = now[1] .. string.format('%06d', tonumber(now[2]))
redis.call('HSET', KEYS[1], 'stock', ARGV[1], 'available', available, 'reserved', reserved, 'sold', ARGV[4],
  'limit', ARGV[5], 'wver', ARGV[6], 'seq', seq, 'epoch', now[1] .. '.' .. now[2], 'gen', ARGV[7],
  'starts', ARGV[9], 'ends', ARGV[10], 'paused', ARGV[11], 'salever', ARGV[6], 'ttl', ARGV[12],
  'retired', ARGV[13] or '0')
redis.call('PUBLISH', ARGV[8], KEYS[1] .. ' ' .. seq)
return 1
