-- redis-lua: mirror an order's move out of RESERVED (already committed in MySQL) in the hot stock, exactly once:
-- only the call that removes the order from the held hash moves units.
-- KEYS[1] stock hash   KEYS[2] users hash   KEYS[3] held hash   KEYS[4] the item's lock, which a pod holds while it
--         rebuilds the hash from a MySQL snapshot (HotStockWarmer): a change written into the old hash meanwhile would
--         be lost with it, so the item counts as cold until the lock is gone
-- ARGV[1] orderId   ARGV[2] 'CONFIRMED' (reserved -> sold) or 'RETURNED' (cancelled/expired: reserved -> available)
-- ARGV[3] the units-back channel: every script that gives units back to available publishes "<stock key> <seq>"
--         there, so that each pod drops what it cached about the item older than that seq (sold-out answered from
--         memory, availability reads)
-- KEYS[5] the item's left hash: orders that left RESERVED while the held hash had no record of them
-- ARGV[4] the hot-stock generation of the pod: a hash of another one is about to be rebuilt from MySQL, and is cold here
-- Returns the item's new seq (> 0) when units moved, 0 when this move was mirrored already (or the warm-up's MySQL snapshot had it, so
-- the order is not in the held hash), -1 when the item is cold: keep the event, it is applied after warm-up.
-- With no held record, the move is noted in the left hash (10 min): an order acknowledged before Redis lost its data
-- and committed after the re-warm's snapshot has no record until its settle takes it in (settle_entries.lua), which
-- may come after this move; it then takes the order in as it now stands, not as reserved.
if redis.call('HGET', KEYS[1], 'gen') ~= ARGV[4] or redis.call('EXISTS', KEYS[4]) == 1 then
  return -1
end
local held = redis.call('HGET', KEYS[3], ARGV[1])
if not held then
  redis.call('HSET', KEYS[5], ARGV[1], ARGV[2])
  redis.call('EXPIRE', KEYS[5], 600)
  return 0
end
redis.call('HDEL', KEYS[3], ARGV[1])
local user, quantity = string.match(held, '^(%S+) (%d+)')
quantity = tonumber(quantity)
redis.call('HINCRBY', KEYS[1], 'reserved', -quantity)
if ARGV[2] == 'CONFIRMED' then
  redis.call('HINCRBY', KEYS[1], 'sold', quantity)
else
  redis.call('HINCRBY', KEYS[1], 'available', quantity)
  if redis.call('HEXISTS', KEYS[2], user) == 1 then
    redis.call('HINCRBY', KEYS[2], user, -quantity)
  end
end
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
if ARGV[2] ~= 'CONFIRMED' then
  redis.call('PUBLISH', ARGV[3], KEYS[1] .. ' ' .. string.format('%d', seq))
end
return seq
