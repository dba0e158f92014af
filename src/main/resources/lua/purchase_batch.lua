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
-- ARGV[1..13] purchase.lua's ARGV for the first purchase (ARGV[8..13], the Idempotency-Key TTL, the answering pod,
--   'OWN' or '', the stream's bound, the generation and '' for the cart, are the same for every purchase of the batch:
--   a cart's lines are never batched), then per purchase i from 2 to n its own purchase.lua ARGV[1..7] (orderId,
--   userId, quantity, fingerprint, createdAt, expiresAt, Idempotency-Key) at ARGV[7i - 1 + 1 .. 7i - 1 + 7]; n is
--   (#ARGV - 6) / 7. The rules read each purchase's values there (no table per purchase).
-- Returns n replies, the i-th purchase.lua's reply for purchase i. Each purchase's tombstone counts as in a single
-- call: a caller that gave up on the batch (timeout) and voided its order ids before it ran stops them all.
-- Where purchase i's own values start in ARGV (after ARGV[8..13] from the second purchase on).
local function own(i)
  return i == 1 and 0 or 7 * i - 1
end
local n = (#ARGV - 6) / 7
local item = open_item(KEYS, ARGV)
item.n = n
local keyed = false
for i = 1, n do
  keyed = keyed or ARGV[own(i) + 4] ~= ''
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
  replies[i] = decide(item, KEYS, i, ARGV, own(i))
end
close_item(item, KEYS, ARGV)
return replies
