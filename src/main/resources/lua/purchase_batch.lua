-- redis-lua: several purchases of one item, decided in one call, in arrival order, each exactly as purchase.lua
-- decides one. The script Redis runs is purchase.lua's body as the local function purchase(KEYS, ARGV), then this
-- file (LuaScript.wrapping): no second copy of the rules. One call per batch saves what each call costs apart from
-- its decision (the round trip, parsing, the script's start, the reply), which is most of a single purchase's cost.
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
local replies = {}
for i = 1, n do
  local k = 4 + 3 * (i - 1)
  local a = 6 + 7 * (i - 1)
  local reply = purchase({KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[k + 1], KEYS[k + 2], KEYS[k + 3]},
    {ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6], ARGV[2], ARGV[a + 7], ARGV[3],
      ARGV[4], ARGV[5], ARGV[6], ''})
  replies[i] = reply
  if reply[1] == 'COLD' or reply[1] == 'STALE' then
    -- The item's hash is missing or of another generation: every later purchase would be answered the same, and
    -- each is asked again once the pod has warmed the item.
    for j = i + 1, n do
      replies[j] = reply
    end
    break
  end
end
return replies
