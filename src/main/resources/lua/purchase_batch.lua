-- redis-lua: several purchases of one item, decided in one call, in arrival order, each by the rules that decide one
-- (purchase_rules.lua, which LuaScript puts before this file, as before purchase.lua): no second copy of the rules.
-- The item's hash is read once and its counters written once per call, and so are the purchases' tombstones and
-- keys (one EXISTS, or with a key among them one MGET) and their held records (one HSET); what is left per purchase
-- is its stream entry and key. One call per batch also saves what each call costs apart from its decision (the round
-- trip, parsing, the script's start, the reply).
-- Every key comes through KEYS; all share the item's {sku} hash tag.
-- KEYS[1..4] purchase.lua's KEYS[1..4], the item's: stock, users, held, orders
-- then the purchases' own keys by kind, purchase i (1..n) at: KEYS[4 + i] its KEYS[5] (the user's key),
--   KEYS[4 + n + i] its KEYS[6] (its void tombstone), KEYS[4 + 2n + i] its KEYS[7] (the key's older name)
-- ARGV[1..13] purchase.lua's ARGV for the first purchase (ARGV[8..13], the Idempotency-Key TTL, the answering pod,
--   'OWN' or '', the stream's bound, the generation and '' for the cart, are the same for every purchase of the batch:
--   PurchaseCombiner ends a batch before a purchase whose differ, and a cart's lines are never batched), then per
--   purchase i from 2 to n its own purchase.lua ARGV[1..7] (orderId, userId, quantity, fingerprint, createdAt,
--   expiresAt, Idempotency-Key) at ARGV[7i - 1 + 1 .. 7i - 1 + 7]; n is (#ARGV - 6) / 7. The rules read each
--   purchase's values there (no table per purchase).
-- Returns 6n values, purchase.lua's reply for purchase i at [6i - 5 .. 6i], '' for the values its kind does not have
-- (a flat array: Redis converts each table of a reply at the cost of several values). Each purchase's tombstone
-- counts as in a single call: a caller that gave up on the batch (timeout) and voided its order ids before it ran
-- stops them all.
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
  -- Read ahead, one command for the whole call: whether any purchase was voided (the common answer is none, and then
  -- no purchase checks its own tombstone), and with a key among them, the keys a keyed purchase may find an earlier
  -- answer under. One MGET of every purchase's own keys reads both: item.read[k] is KEYS[4 + k]'s value.
  if keyed then
    item.read = redis.call('MGET', unpack(KEYS, 5, 4 + 3 * n))
    item.no_void = true
    for k = n + 1, 2 * n do
      if item.read[k] then
        item.no_void = false
      end
    end
  else
    item.no_void = redis.call('EXISTS', unpack(KEYS, 5 + n, 4 + 2 * n)) == 0
  end
end
-- The reply is made at its full size at once (from ARGV, which is longer; Lua grows a table by copying it), then
-- overwritten.
local flat = {unpack(ARGV, 1, 6 * n)}
for i = 1, n do
  local reply, at = decide(item, KEYS, i, ARGV, own(i)), 6 * i - 6
  flat[at + 1], flat[at + 2], flat[at + 3], flat[at + 4], flat[at + 5], flat[at + 6] = reply[1], reply[2] or '',
    reply[3] or '', reply[4] or '', reply[5] or '', reply[6] or ''
end
close_item(item, KEYS, ARGV)
for _, made in ipairs(item.made) do
  flat[6 * made[7] - 4] = made[2] -- the entry id, known once written
end
return flat
