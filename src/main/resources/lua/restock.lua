-- redis-lua: mirror a restock (already committed in MySQL) in the hot stock, exactly once per restock event; a stock
-- set is mirrored here too, as a restock of ARGV[1] = new stock - old stock (negative for a lowering, whose units
-- set_stock.lua took before the commit: its marker is set, so nothing is taken twice; the 'taking' mark it left is
-- cleared here).
-- KEYS[1] stock hash   KEYS[2] fs:{sku}:event:<eventId> marker (expires after ARGV[3] s)
-- KEYS[3] the item's lock: held while a pod rebuilds the hash (see transition.lua), and then the item counts as cold
-- ARGV[1] quantity   ARGV[2] eventId   ARGV[3] marker TTL (s)   ARGV[4] the item's MySQL version after the restock
-- ARGV[5] the units-back channel (see transition.lua)   ARGV[6] the pod's hot-stock generation (see transition.lua)
-- Returns the item's new seq (> 0) when applied; 0 when applied before, or when the hash was built from a MySQL snapshot that has it
-- (its 'wver' is not older); -1 when the item is cold: keep the event, it is applied after warm-up.
if redis.call('HGET', KEYS[1], 'gen') ~= ARGV[6] or redis.call('EXISTS', KEYS[3]) == 1 then
  return -1
end
local taking = redis.call('HGET', KEYS[1], 'taking')
if taking and string.sub(taking, 1, string.len(ARGV[2]) + 1) == ARGV[2] .. ' ' then
  redis.call('HDEL', KEYS[1], 'taking')
end
-- A stock set's units taken for this event (set_stock.lua): the event is committed (only committed events come here),
-- so its undo must give nothing back.
if redis.call('GET', KEYS[2]) == 'taken' then
  redis.call('SET', KEYS[2], 'applied', 'XX', 'KEEPTTL')
end
if tonumber(ARGV[4]) <= tonumber(redis.call('HGET', KEYS[1], 'wver') or '0') then
  return 0
end
if not redis.call('SET', KEYS[2], '1', 'NX', 'EX', ARGV[3]) then
  return 0
end
redis.call('HINCRBY', KEYS[1], 'stock', ARGV[1])
redis.call('HINCRBY', KEYS[1], 'available', ARGV[1])
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('PUBLISH', ARGV[5], KEYS[1] .. ' ' .. string.format('%d', seq))
return seq
