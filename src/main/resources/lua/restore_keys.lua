-- redis-lua: put back an item's Idempotency-Keys that MySQL still remembers, as a warm-up of its hot stock does
-- (lua/warm.lua), one chunk of keys per call instead of two round trips per key. A key Redis holds already (a
-- purchase ran meanwhile, or another warmer was first) is left as it is, its TTL too.
-- KEYS[i]   the Idempotency-Key of one order (fs:{sku}:ukey:<n>:<userId>:<key>, see RedisKeys.idempotency; every
--           key of one call shares the item's tag)
-- ARGV[2i-1] its value ('orderId fingerprint createdAt expiresAt')   ARGV[2i] its TTL in seconds (> 0)
-- Returns how many keys were set.
local set = 0
for i = 1, #KEYS do
  if redis.call('SET', KEYS[i], ARGV[2 * i - 1], 'NX', 'EX', ARGV[2 * i]) then
    set = set + 1
  end
end
return set
