-- redis-lua: mirror a restock (already committed in MySQL) in the hot stock, exactly once per restock event.
-- KEYS[1] stock hash   KEYS[2] fs:{sku}:event:<eventId> marker (expires after ARGV[3] s)
-- ARGV[1] quantity   ARGV[2] eventId   ARGV[3] marker TTL (s)
-- Returns 1 when applied, 0 when applied before or the item is cold (warm-up then copies MySQL).
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
if not redis.call('SET', KEYS[2], '1', 'NX', 'EX', ARGV[3]) then
  return 0
end
redis.call('HINCRBY', KEYS[1], 'stock', ARGV[1])
redis.call('HINCRBY', KEYS[1], 'available', ARGV[1])
redis.call('HINCRBY', KEYS[1], 'seq', 1)
return 1
