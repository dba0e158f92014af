-- redis-lua: one purchase, decided atomically. Every key comes through KEYS; all share the item's {sku} hash tag.
-- KEYS[1] fs:{sku}:stock    hash: stock, available, reserved, sold, limit, seq (bumped by every change), epoch (set
--                           by each warm-up; each entry records it, see settle_entries.lua)
-- KEYS[2] fs:{sku}:users    hash: userId -> units in RESERVED + CONFIRMED orders (kept when limit > 0)
-- KEYS[3] fs:{sku}:held     hash: orderId -> "userId quantity [streamEntryId]" of each RESERVED order
-- KEYS[4] fs:{sku}:orders   stream: orders acknowledged here and not yet in MySQL (the durable pending record),
--                           read through the consumer group 'relay': an entry a consumer holds is that consumer's
-- KEYS[5] fs:{sku}:ukey:<n>:<userId>:<Idempotency-Key>  the user's key (see RedisKeys.idempotency): string
--                           "orderId fingerprint createdAt expiresAt", then " R" once a write-behind repeat was
--                           answered with the order (unused without a key)
-- KEYS[6] fs:{sku}:void:<orderId>  tombstone: the caller gave up on this order id (timeout); never run it then
-- KEYS[7] fs:{sku}:idem:<Idempotency-Key>  the key's name before keys were the user's, read only: a purchase made
--                           before the upgrade answers its retry until the name expires. The fingerprint hashes the
--                           user, so it answers only its own user; another user's is ignored (another request)
-- ARGV[1] orderId   ARGV[2] userId   ARGV[3] quantity   ARGV[4] request fingerprint, '' without a key
-- ARGV[5] createdAt (epoch s)   ARGV[6] expiresAt (epoch s) with the service's default TTL; an item with a TTL of
--         its own (hash field 'ttl', seconds) expires at createdAt + ttl instead   ARGV[7] Idempotency-Key TTL (s)
-- ARGV[8] Idempotency-Key, '' without one   ARGV[9] id of the pod that answers
-- ARGV[10] 'OWN' (write-through): the answering pod's request takes its entry at once (consumer ARGV[9]), so no
--          relay can read it while the request persists it; '' (write-behind): the relays read it
-- ARGV[11] most entries the item's stream may hold (write-behind's bound on what Redis data loss can take), 0: none
-- ARGV[12] the hot-stock generation the pod knows: an item warmed under another one is 'STALE' (Redis lost data, or
--          a pod of another strategy changed MySQL since): the pod rebuilds it from MySQL, or learns the new generation
-- ARGV[13] the purchase id of the cart this is a line of, '' for a single purchase: no relay persists the entry alone
--          (see cart_decide.lua)
-- The sale window (fields 'starts', 'ends': epoch ms; '0' or absent, and only that, means no bound; 'paused') is
-- judged by Redis's clock, one for all pods. A bound is never written as 0 (see SaleFields.java); a negative one (an
-- end before 1970 mirrored by an older pod) is a bound in the past: an end there has passed.
-- Returns {'OK', streamEntryId, epoch, available, seq, expiresAt} | {'REPLAY', orderId, createdAt, expiresAt} | {'KEY_REUSED'}
--       | {'RETIRED'} (field 'retired' is '1': the item sells no more) | {'PAUSED'} | {'NOT_STARTED', ms to the start}
--       | {'ENDED'}
--       | {'SOLD_OUT', available, seq} | {'LIMIT', limit} | {'BUSY'} (the stream is full: the relays lag behind)
--       | {'COLD'} (no stock hash: never warmed, or Redis lost it) | {'STALE'} | {'VOID'}
-- (available, seq) after the call let the pod answer sold-out from memory until a units-back message with a newer seq.
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {'COLD'}
end
if redis.call('EXISTS', KEYS[6]) == 1 then
  return {'VOID'}
end
local fingerprint = ARGV[4]
if fingerprint ~= '' then
  local slot = 5
  local earlier = redis.call('GET', KEYS[slot])
  if not earlier then
    slot = 7
    earlier = redis.call('GET', KEYS[slot])
    if earlier and string.match(earlier, '^%S+ (%S+)') ~= fingerprint then
      -- Another user's, or this user's with another quantity: a new purchase here, which MySQL's unique key refuses
      -- (write-through answers 422 then; write-behind takes it back, as for a key Redis forgot).
      earlier = nil
    end
  end
  if earlier then
    local id, used, created, expires, answered = string.match(earlier, '^(%S+) (%S+) (%S+) (%S+) ?(%S*)$')
    if used ~= fingerprint then
      return {'KEY_REUSED'}
    end
    if ARGV[10] ~= 'OWN' and answered == '' then
      -- Write-behind answers this repeat 201 with the order, which may still be only here: mark the key, so that the
      -- first request, if it gave up on its call (timeout), cannot take the order back (see undo_purchase.lua).
      redis.call('SET', KEYS[slot], earlier .. ' R', 'KEEPTTL')
    end
    return {'REPLAY', id, created, expires}
  end
end
local quantity = tonumber(ARGV[3])
local counters = redis.call('HMGET', KEYS[1], 'available', 'limit', 'epoch', 'gen', 'seq', 'paused', 'starts', 'ends',
  'ttl', 'retired')
if counters[4] ~= ARGV[12] then
  return {'STALE'}
end
if counters[10] == '1' then
  return {'RETIRED'}
end
if counters[6] == '1' then
  return {'PAUSED'}
end
local starts = tonumber(counters[7] or '0')
local ends = tonumber(counters[8] or '0')
if starts ~= 0 or ends ~= 0 then
  local now = redis.call('TIME')
  local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
  if starts ~= 0 and nowMs < starts then
    return {'NOT_STARTED', starts - nowMs}
  end
  if ends ~= 0 and nowMs >= ends then
    return {'ENDED'}
  end
end
local epoch = counters[3] or ''
local ttl = tonumber(counters[9] or '0')
local expires = ARGV[6]
if ttl > 0 then
  expires = tostring(tonumber(ARGV[5]) + ttl)
end
local available = tonumber(counters[1])
if available < quantity then
  return {'SOLD_OUT', available, counters[5]}
end
local cap = tonumber(ARGV[11])
if cap > 0 and redis.call('XLEN', KEYS[4]) >= cap then
  return {'BUSY'}
end
local limit = tonumber(counters[2])
if limit > 0 then
  local held = tonumber(redis.call('HGET', KEYS[2], ARGV[2]) or '0')
  if held + quantity > limit then
    return {'LIMIT', limit}
  end
  redis.call('HINCRBY', KEYS[2], ARGV[2], quantity)
end
available = redis.call('HINCRBY', KEYS[1], 'available', -quantity)
redis.call('HINCRBY', KEYS[1], 'reserved', quantity)
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
if redis.call('EXISTS', KEYS[4]) == 0 then
  redis.call('XGROUP', 'CREATE', KEYS[4], 'relay', '0', 'MKSTREAM')
end
local entry = redis.call('XADD', KEYS[4], '*', 'id', ARGV[1], 'user', ARGV[2], 'qty', quantity,
  'key', ARGV[8], 'fp', fingerprint, 'created', ARGV[5], 'expires', expires, 'pod', ARGV[9], 'ep', epoch,
  'cart', ARGV[13])
if ARGV[10] == 'OWN' then
  -- Every write-through purchase takes what is new, so what is new now is this entry alone.
  redis.call('XREADGROUP', 'GROUP', 'relay', ARGV[9], 'COUNT', '100', 'STREAMS', KEYS[4], '>')
end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2] .. ' ' .. quantity .. ' ' .. entry)
if fingerprint ~= '' then
  redis.call('SET', KEYS[5], ARGV[1] .. ' ' .. fingerprint .. ' ' .. ARGV[5] .. ' ' .. expires, 'EX', ARGV[7])
end
return {'OK', entry, epoch, available, seq, expires}
