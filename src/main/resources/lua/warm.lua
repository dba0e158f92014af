-- redis-lua: create an item's hot stock from MySQL's counters, only where it does not exist. Never overwrites a
-- live item, never flushes anything. The held and users hashes were filled just before, under the item's lock.
-- KEYS[1] stock hash
-- ARGV[1] stock   ARGV[2] available   ARGV[3] reserved   ARGV[4] sold   ARGV[5] per-user limit
-- ARGV[6] the item's MySQL version in that snapshot ('wver': mirrored changes up to it are in the snapshot)
-- Returns 1 when created, 0 when the item was warm already.
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'stock', ARGV[1], 'available', ARGV[2], 'reserved', ARGV[3], 'sold', ARGV[4],
  'limit', ARGV[5], 'wver', ARGV[6], 'seq', 0)
return 1
