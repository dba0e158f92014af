-- redis-lua: orders just committed in MySQL leave the item's pending stream (acknowledged in the consumer group
-- 'relay' and deleted in one step, so no entry is ever left acknowledged but still in the stream), and the hot stock
-- takes in the ones it does not know: orders acknowledged before Redis lost its data whose commit landed after the
-- MySQL snapshot the item was re-warmed from. Without that, Redis would sell their units a second time.
-- KEYS[1] fs:{sku}:orders stream   KEYS[2] fs:{sku}:stock hash   KEYS[3] fs:{sku}:held hash
-- KEYS[4] fs:{sku}:users hash      KEYS[5] fs:{sku}:late hash: commits seen while the item was cold
-- KEYS[6] fs:{sku}:left hash: orders whose move out of RESERVED was mirrored before they were taken in (transition.lua)
-- ARGV[1] the item's MySQL version right after the commit (0: nothing was inserted)   ARGV[2] n, the entry count
-- ARGV[3 .. 2+n] the entry ids, then for each order inserted by the commit: orderId, userId, quantity, epoch (the
--                hot stock's 'epoch' the order was acknowledged under); or '?' and then the distinct epochs of the
--                orders inserted: the orders themselves are sent only when the hot stock has one to take in, which
--                is rare (it was re-warmed, or is cold, since they were acknowledged): the common settle sends 1
--                value per order instead of 5.
-- Returns the number of orders the hot stock took in (or set aside for the warm-up when cold); -1 (after '?'): it
-- may have one to take in, nothing was changed, and the call is to be made again with the orders.
-- The entries leave the stream. XDEL looks each id up on its own: about 13,000 of Redis's instructions per id, more
-- than the purchase's XADD. XTRIM drops the stream's oldest entries whole listpack nodes at a time, a few hundred
-- per id. Every entry older than the oldest one still in the group's pending list (or, with none pending, every
-- entry the group delivered) is an acknowledged one: the group reads from '0', in order, and an entry leaves the
-- pending list only by an acknowledgement that comes with its delete (here and in undo_purchase.lua). So the trim
-- takes only entries that are done, and when every one of these was pending and it took as many, it took these. When
-- not (an entry here was never delivered, or is gone already; an older entry is still pending: another consumer's, a
-- cart's line, one MySQL did not decide), they go by XDEL, as before.
local function remove_entries(n)
  if redis.call('XACK', KEYS[1], 'relay', unpack(ARGV, 3, 2 + n)) < n then
    redis.call('XDEL', KEYS[1], unpack(ARGV, 3, 2 + n))
    return
  end
  local pending = redis.call('XPENDING', KEYS[1], 'relay')
  local bound = pending[2]
  if pending[1] == 0 then
    local group = redis.call('XINFO', 'GROUPS', KEYS[1])[1]
    for i = 1, #group, 2 do
      if group[i] == 'last-delivered-id' then
        local ms, seq = string.match(group[i + 1], '^(%d+)-(%d+)$')
        bound = ms .. '-' .. tostring(tonumber(seq) + 1)
      end
    end
  end
  if redis.call('XTRIM', KEYS[1], 'MINID', '=', bound) < n then
    redis.call('XDEL', KEYS[1], unpack(ARGV, 3, 2 + n))
  end
end

-- After '?': whether the hot stock may have to take in an order of these epochs (the checks below, before the
-- per-order one).
local function may_take_in(n, version)
  if redis.call('EXISTS', KEYS[2]) == 0 then
    return true
  end
  local state = redis.call('HMGET', KEYS[2], 'epoch', 'wver')
  if not state[1] or version <= tonumber(state[2] or '0') then
    return false
  end
  for i = 4 + n, #ARGV do
    if ARGV[i] ~= state[1] then
      return true
    end
  end
  return false
end

local n = tonumber(ARGV[2])
local version = tonumber(ARGV[1])
local epochs_only = ARGV[3 + n] == '?'
if epochs_only and version > 0 and may_take_in(n, version) then
  return -1
end
if n > 0 and redis.call('EXISTS', KEYS[1]) == 1 then
  remove_entries(n)
end
if version == 0 or epochs_only then
  return 0
end
local taken = 0
if redis.call('EXISTS', KEYS[2]) == 0 then
  -- Cold: the warm-up to come applies these if its snapshot predates them (warm.lua).
  for i = 3 + n, #ARGV, 4 do
    redis.call('HSET', KEYS[5], ARGV[i], ARGV[i + 1] .. ' ' .. ARGV[i + 2] .. ' ' .. version)
    taken = taken + 1
  end
  if taken > 0 then
    redis.call('EXPIRE', KEYS[5], 86400)
  end
  return taken
end
local state = redis.call('HMGET', KEYS[2], 'epoch', 'wver', 'limit')
if not state[1] or version <= tonumber(state[2] or '0') then
  -- The hot stock's counters were read from MySQL after this commit (they have it), or it predates epochs.
  return 0
end
for i = 3 + n, #ARGV, 4 do
  -- Same epoch: the purchase script counted the order itself. Held: counted already (snapshot or earlier call).
  if ARGV[i + 3] ~= state[1] and redis.call('HEXISTS', KEYS[3], ARGV[i]) == 0 then
    -- Moved out of RESERVED since its commit, and mirrored before this settle: taken in as it stands now. Returned
    -- (cancelled, expired): its units are available, as the counters have them. Confirmed: sold.
    local left = redis.call('HGET', KEYS[6], ARGV[i])
    if left then
      redis.call('HDEL', KEYS[6], ARGV[i])
    end
    if left ~= 'RETURNED' then
      local quantity = tonumber(ARGV[i + 2])
      redis.call('HINCRBY', KEYS[2], 'available', -quantity)
      if left == 'CONFIRMED' then
        redis.call('HINCRBY', KEYS[2], 'sold', quantity)
      else
        redis.call('HINCRBY', KEYS[2], 'reserved', quantity)
        redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1] .. ' ' .. quantity)
      end
      if tonumber(state[3] or '0') > 0 then
        redis.call('HINCRBY', KEYS[4], ARGV[i + 1], quantity)
      end
      taken = taken + 1
    end
  end
end
if taken > 0 then
  redis.call('HINCRBY', KEYS[2], 'seq', 1)
end
return taken
