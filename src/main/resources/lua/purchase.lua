-- redis-lua: one purchase, decided atomically by the rules of purchase_rules.lua (which LuaScript puts before this
-- file). Every key comes through KEYS; all share the item's {sku} hash tag.
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
--         its own (hash field 'ttl', seconds) expires at createdAt + ttl instead
-- ARGV[7] Idempotency-Key, '' without one
--   (ARGV[1..7] are the purchase's own; ARGV[8..13] are the same for every purchase a pod makes of the item: a
--   combined call, purchase_batch.lua, sends them once, after its first purchase's own)
-- ARGV[8] Idempotency-Key TTL (s)   ARGV[9] id of the pod that answers
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
local item = open_item(KEYS, ARGV)
local reply = decide(item, KEYS, 1, ARGV, 0)
close_item(item, KEYS, ARGV)
reply[7], reply[8] = nil, nil -- a purchase taken: the rules' own values (see purchase_rules.lua)
return reply
