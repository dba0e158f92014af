-- redis-lua: several purchases of one item, decided in one call, in arrival order, each by the rules that decide one
-- (purchase_rules.lua, which LuaScript puts before this file, as before purchase.lua): no second copy of the rules.
-- The item's hash is read once and its counters written once per call; what is left per purchase is its own key
-- and tombstone reads, its stream entry, held record and key. One call per batch also saves what each call costs
-- apart from its decision (the round trip, parsing, the script's start, the reply).
-- Every key comes through KEYS; all share the item's {sku} hash tag.
-- KEYS[1..4] purchase.lua's KEYS[1..4], the item's: stock, users, held, orders
-- then per purchase i (1..n), three keys at KEYS[4 + 3(i-1) + 1 .. 3]: its KEYS[5] (the user's key), KEYS[6] (its
--   void tombstone), KEYS[7] (the key's older name)
-- ARGV[1] n   ARGV[2] Idempotency-Key TTL (s)   ARGV[3] id of the pod that answers   ARGV[4] 'OWN' or ''
-- ARGV[5] most entries the item's stream may hold   ARGV[6] the hot-stock generation the pod knows
--   (purchase.lua's ARGV[7], ARGV[9] to ARGV[12], the same for every purchase of the batch)
-- then per purchase i, seven values at ARGV[6 + 7(i-1) + 1 .. 7]: orderId, userId, quantity, fingerprint, createdAt,
--   expiresAt, Idempotency-Key (purchase.lua's ARGV[1] to ARGV[6] and ARGV[8]); a cart's lines are never batched
-- Returns n replies, the i-th purchase.lua's reply for purchase i. Each purchase's tombstone is checked as in a
-- single call: a caller that gave up on the batch (timeout) and voided its order ids before it ran stops them all.
local n = tonumber(ARGV[1])
local item
local replies = {}
for i = 1, n do
  local k = 4 + 3 * (i - 1)
  local a = 6 + 7 * (i - 1)
  local own = {KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[k + 1], KEYS[k + 2], KEYS[k + 3]}
  local args = {ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6], ARGV[2], ARGV[a + 7],
    ARGV[3], ARGV[4], ARGV[5], ARGV[6], ''}
  item = item or open_item(own, args)
  replies[i] = decide(item, own, args)
end
close_item(item, KEYS, {nil, nil, nil, nil, nil, nil, ARGV[2], nil, ARGV[3], ARGV[4], ARGV[5], ARGV[6], ''})
return replies
