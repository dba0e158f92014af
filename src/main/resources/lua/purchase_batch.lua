-- redis-lua: several purchases of one item, decided in one call, in arrival order, each by the rules that decide one
-- (purchase_rules.lua, which LuaScript puts before this file, as before purchase.lua): no second copy of the rules.
-- The item's hash is read once and its counters written once per call, and so are the purchases' tombstones and
-- keys (one EXISTS, one MGET); what is left per purchase is its stream entry, held record and key. One call per
-- batch also saves what each call costs apart from its decision (the round trip, parsing, the script's start, the
-- reply).
-- Every key comes through KEYS; all share the item's {sku} hash tag.
-- KEYS[1..4] purchase.lua's KEYS[1..4], the item's: stock, users, held, orders
-- then the purchases' own keys by kind, purchase i (1..n) at: KEYS[4 + i] its KEYS[5] (the user's key),
--   KEYS[4 + n + i] its KEYS[6] (its void tombstone), KEYS[4 + 2n + i] its KEYS[7] (the key's older name)
-- ARGV[1] n   ARGV[2] Idempotency-Key TTL (s)   ARGV[3] id of the pod that answers   ARGV[4] 'OWN' or ''
-- ARGV[5] most entries the item's stream may hold   ARGV[6] the hot-stock generation the pod knows
--   (purchase.lua's ARGV[7], ARGV[9] to ARGV[12], the same for every purchase of the batch)
-- then per purchase i, seven values at ARGV[6 + 7(i-1) + 1 .. 7]: orderId, userId, quantity, fingerprint, createdAt,
--   expiresAt, Idempotency-Key (purchase.lua's ARGV[1] to ARGV[6] and ARGV[8]); a cart's lines are never batched
-- Returns n replies, the i-th purchase.lua's reply for purchase i. Each purchase's tombstone counts as in a single
-- call: a caller that gave up on the batch (timeout) and voided its order ids before it ran stops them all.
local n = tonumber(ARGV[1])
local item = open_item(KEYS, {nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, ARGV[6]})
item.n = n
local keyed = false
for i = 1, n do
  keyed = keyed or ARGV[6 + 7 * (i - 1) + 4] ~= ''
end
if not item.cold then
  -- Read ahead, one command per kind for the whole call: whether any purchase was voided (the common answer is none,
  -- and then no purchase checks its own tombstone), and the keys a keyed purchase may find an earlier answer under.
  item.no_void = redis.call('EXISTS', unpack(KEYS, 5 + n, 4 + 2 * n)) == 0
  if keyed then
    item.read = {}
    local users = redis.call('MGET', unpack(KEYS, 5, 4 + n))
    local older = redis.call('MGET', unpack(KEYS, 5 + 2 * n, 4 + 3 * n))
    for i = 1, n do
      item.read[4 + i], item.read[4 + 2 * n + i] = users[i], older[i]
    end
  end
end
local replies = {}
for i = 1, n do
  local a = 6 + 7 * (i - 1)
  local args = {ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6], ARGV[2], ARGV[a + 7],
    ARGV[3], ARGV[4], ARGV[5], ARGV[6], ''}
  replies[i] = decide(item, KEYS, i, args)
end
close_item(item, KEYS, {nil, nil, nil, nil, nil, nil, ARGV[2], nil, ARGV[3], ARGV[4], ARGV[5], ARGV[6], ''})
return replies
