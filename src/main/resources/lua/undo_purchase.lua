-- redis-lua: take back a purchase whose order did not reach MySQL. Runs at most once per order: only the caller
-- that removes the pending stream entry undoes it.
-- KEYS[1] stock hash   KEYS[2] users hash   KEYS[3] held hash   KEYS[4] orders stream
-- KEYS[5] the user's Idempotency-Key (fs:{sku}:ukey:...)   KEYS[6] fs:{sku}:void:<orderId> tombstone
-- KEYS[7] the key's name before keys were the user's (fs:{sku}:idem:<key>), which a purchase made before the upgrade
--         wrote: it answers the order too (see purchase.lua), so it goes with it
-- ARGV[1] orderId
-- ARGV[2] stream entry id, or '' when the caller does not know whether the purchase ran (it timed out): then a
--         tombstone is written first, so that a purchase still queued in Redis refuses to run, and the entry id
--         comes from the held hash if it did run
-- ARGV[3] 'RETURN': MySQL was unreachable, the order was a duplicate, or the caller gave up; units back to available.
--         'DROP': MySQL refused the units (Redis had stale, too high stock); they leave Redis's stock instead.
-- ARGV[4] tombstone TTL (s)
-- ARGV[5] the consumer of group 'relay' the caller reads as: an entry another consumer holds is being persisted by
--         it and is never taken back here; '' (a line of an ABORTED cart, which nobody persists): whoever holds it
-- ARGV[6] the units-back channel (see transition.lua)
-- Returns 1 when undone; 2 when the purchase never ran (a tombstone stopped it, or it left no trace); 0 when its
-- entry is gone (persisted, or undone before; or its held record came from MySQL, which has the order); -1 when
-- another consumer holds the entry (it is being persisted); -2 (the caller gave up) when a repeat of the request with
-- its Idempotency-Key was answered with the order already.
local held = redis.call('HGET', KEYS[3], ARGV[1])
local entry = ARGV[2]
if entry == '' then
  redis.call('SET', KEYS[6], '1', 'EX', ARGV[4])
  if not held then
    return 2
  end
  entry = string.match(held, '^%S+ %d+ (%S+)$')
  if not entry then
    -- A record without its entry ('user qty') was written from MySQL (a rebuild, or a settle from another epoch):
    -- the order is there, so the purchase ran and stands.
    return 0
  end
  -- A repeat of the request was answered 201 with this order meanwhile (purchase.lua marks its key): the order
  -- stands, and is left to the relays.
  for slot = 5, 7, 2 do
    local answered = redis.call('GET', KEYS[slot])
    if answered and string.sub(answered, 1, string.len(ARGV[1]) + 1) == ARGV[1] .. ' '
        and string.sub(answered, -2) == ' R' then
      return -2
    end
  end
end
if redis.call('EXISTS', KEYS[4]) == 1 then
  local pending = redis.call('XPENDING', KEYS[4], 'relay', entry, entry, 1)
  if #pending > 0 and ARGV[5] ~= '' and pending[1][2] ~= ARGV[5] then
    return -1
  end
  redis.call('XACK', KEYS[4], 'relay', entry)
end
if redis.call('XDEL', KEYS[4], entry) == 0 then
  return 0
end
if not held then
  return 1
end
redis.call('HDEL', KEYS[3], ARGV[1])
local user, quantity = string.match(held, '^(%S+) (%d+)')
quantity = tonumber(quantity)
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HINCRBY', KEYS[1], 'reserved', -quantity)
  if ARGV[3] == 'RETURN' then
    redis.call('HINCRBY', KEYS[1], 'available', quantity)
  else
    redis.call('HINCRBY', KEYS[1], 'stock', -quantity)
  end
  local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
  if ARGV[3] == 'RETURN' then
    redis.call('PUBLISH', ARGV[6], KEYS[1] .. ' ' .. string.format('%d', seq))
  end
end
if redis.call('HEXISTS', KEYS[2], user) == 1 then
  redis.call('HINCRBY', KEYS[2], user, -quantity)
end
for slot = 5, 7, 2 do
  local earlier = redis.call('GET', KEYS[slot])
  if earlier and string.sub(earlier, 1, string.len(ARGV[1]) + 1) == ARGV[1] .. ' ' then
    redis.call('DEL', KEYS[slot])
  end
end
return 1
