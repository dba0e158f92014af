-- redis-lua: the hot-stock half of a stock set that lowers an item's stock (PUT /items/{sku}/stock; the protocol is
-- in StockSets.setStock). Run by the pod that sets the stock, inside its MySQL transaction, which holds the item's
-- row lock and has recorded the change as a RESTOCKED stock event of a negative quantity (ARGV[3] units fewer).
-- KEYS[1] stock hash   KEYS[2] fs:{sku}:event:<eventId> marker: set to 'taken' when the units are taken, so that
--         restock.lua, applying the event after the commit, takes nothing again; restock.lua sets it to 'applied'
--         then (expires after ARGV[4] s)
-- KEYS[3] the item's lock, held while a pod rebuilds the hash (see transition.lua): TAKE then counts it as cold
-- ARGV[1] 'TAKE' | 'UNDO'   ARGV[2] eventId   ARGV[3] units the stock set takes (> 0)   ARGV[4] marker TTL (s)
-- ARGV[5] the units-back channel (see transition.lua)   ARGV[6] the pod's hot-stock generation (see transition.lua)
-- TAKE: takes the units from stock and available only if they are available: the check that reserved + sold (Redis's
--       counters, orders not yet in MySQL included) stay within the new stock, made where purchases are decided and
--       atomically with them. Marks the hash 'taking' ("eventId ms", Redis's clock) until the event is applied or
--       undone: reconcile.lua leaves the item alone meanwhile (MySQL does not show the change before its commit).
--       Returns the item's new seq (> 0) when taken; -2 when fewer units are available (nothing changed); -1 when
--       the item is cold, of another generation or being rebuilt (nothing changed: units taken from a hash about to
--       be replaced by an older snapshot would come back with it).
-- UNDO: the transaction did not commit: gives the units back, once, if they were taken (the marker is there).
--       Returns the new seq (> 0) when given back; 0 when there was nothing to give back; -1 when cold (the next
--       warm-up reads MySQL, which never had the change); -2 when the event was applied ('applied'): only a committed
--       event is mirrored, so the transaction did commit (a lookup that missed its event, which a sweeper had
--       mirrored and deleted meanwhile), and nothing is given back.
if redis.call('HGET', KEYS[1], 'gen') ~= ARGV[6] then
  return -1
end
local units = tonumber(ARGV[3])
if ARGV[1] == 'TAKE' then
  if redis.call('EXISTS', KEYS[3]) == 1 then
    return -1
  end
  if tonumber(redis.call('HGET', KEYS[1], 'available')) < units then
    return -2
  end
  if not redis.call('SET', KEYS[2], 'taken', 'NX', 'EX', ARGV[4]) then
    return 0
  end
  redis.call('HINCRBY', KEYS[1], 'stock', -units)
  redis.call('HINCRBY', KEYS[1], 'available', -units)
  local now = redis.call('TIME')
  redis.call('HSET', KEYS[1], 'taking', ARGV[2] .. ' ' .. (tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)))
  return redis.call('HINCRBY', KEYS[1], 'seq', 1)
end
local marker = redis.call('GET', KEYS[2])
if marker == 'applied' then
  return -2
end
if not marker then
  return 0
end
redis.call('DEL', KEYS[2])
redis.call('HINCRBY', KEYS[1], 'stock', units)
redis.call('HINCRBY', KEYS[1], 'available', units)
local taking = redis.call('HGET', KEYS[1], 'taking')
if taking and string.sub(taking, 1, string.len(ARGV[2]) + 1) == ARGV[2] .. ' ' then
  redis.call('HDEL', KEYS[1], 'taking')
end
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('PUBLISH', ARGV[5], KEYS[1] .. ' ' .. string.format('%d', seq))
return seq
