-- redis-lua: the rules of a purchase, in one place for purchase.lua (one purchase) and purchase_batch.lua (several
-- purchases of one item, in one call). LuaScript puts this file before each of them.
-- Each function takes the call's KEYS and ARGV, the purchase's place i in the call (1 in purchase.lua) and the
-- offset a of its own seven values in ARGV: purchase.lua's ARGV[1..7] are the call's ARGV[a + 1 .. a + 7] (a = 0 for
-- the first purchase of any call), and its ARGV[8..13], the same for every purchase of the call, are the call's
-- ARGV[8..13]. No table is built per purchase, and every key still comes through KEYS. A call of n purchases lists
-- after the item's four keys each purchase's own three by kind: the users' keys at 4 + i, the tombstones at
-- 4 + n + i, the keys' older names at 4 + 2n + i (so n = 1 gives purchase.lua's KEYS[5], [6], [7]).
-- A call reads the item once (open_item), decides its purchases in arrival order against what it read and what the
-- call's earlier purchases took (decide), then writes once what they took (close_item): the counters first, then
-- for each purchase its stream entry, held record and key (a call of several writes their held records in one HSET
-- after their entries). Nothing is written before every purchase is decided, except a replayed key's mark; if a
-- write failed halfway, counters already taken would hold units no entry holds (none oversold).
-- A purchase taken is its reply: {'OK', streamEntryId, epoch, available after it, seq after it, expiresAt, i, a},
-- made whole at once (Lua grows a table by copying it), its entry id set once written; the last two values are the
-- rules' own and never go out.

-- The item's hash, read once per call (KEYS[1..4] and the call's ARGV).
local function open_item(KEYS, ARGV)
  local item = {made = {}, keys = {}, users = {}, taken = 0, n = 1}
  if redis.call('EXISTS', KEYS[1]) == 0 then
    item.cold = true
    return item
  end
  local counters = redis.call('HMGET', KEYS[1], 'available', 'limit', 'epoch', 'gen', 'seq', 'paused', 'starts',
    'ends', 'ttl', 'retired')
  item.available = tonumber(counters[1])
  item.limit = tonumber(counters[2])
  item.epoch = counters[3] or ''
  item.stale = counters[4] ~= ARGV[12]
  item.seq = tonumber(counters[5] or '0')
  item.paused = counters[6] == '1'
  item.starts = tonumber(counters[7] or '0')
  item.ends = tonumber(counters[8] or '0')
  item.ttl = tonumber(counters[9] or '0')
  item.retired = counters[10] == '1'
  return item
end

-- The sale window against Redis's clock (read once per call, only for an item with a bound): nil when open, else
-- the refusal.
local function window(item)
  if item.starts == 0 and item.ends == 0 then
    return nil
  end
  if not item.nowMs then
    local now = redis.call('TIME')
    item.nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
  end
  if item.starts ~= 0 and item.nowMs < item.starts then
    return {'NOT_STARTED', item.starts - item.nowMs}
  end
  if item.ends ~= 0 and item.nowMs >= item.ends then
    return {'ENDED'}
  end
  return nil
end

-- KEYS[slot]'s value, nil when absent: as the batch read it ahead (item.read[slot - 4], false when absent), else
-- read now.
local function read_key(item, KEYS, slot)
  local value = item.read and item.read[slot - 4]
  if value == nil then
    value = redis.call('GET', KEYS[slot])
  end
  return value or nil
end

-- An earlier purchase with this Idempotency-Key (the user's key, then the key's older name): its reply, or nil.
local function earlier_answer(item, KEYS, i, ARGV, a)
  local fingerprint = ARGV[a + 4]
  local slot = 4 + i
  local earlier = item.keys[KEYS[slot]] or read_key(item, KEYS, slot)
  if not earlier then
    slot = 4 + 2 * item.n + i
    earlier = read_key(item, KEYS, slot)
    if earlier and string.match(earlier, '^%S+ (%S+)') ~= fingerprint then
      -- Another user's, or this user's with another quantity: a new purchase here, which MySQL's unique key refuses
      -- (write-through answers 422 then; write-behind takes it back, as for a key Redis forgot).
      earlier = nil
    end
  end
  if not earlier then
    return nil
  end
  local id, used, created, expires, answered = string.match(earlier, '^(%S+) (%S+) (%S+) (%S+) ?(%S*)$')
  if used ~= fingerprint then
    return {'KEY_REUSED'}
  end
  if ARGV[10] ~= 'OWN' and answered == '' then
    -- Write-behind answers this repeat 201 with the order, which may still be only here: mark the key, so that the
    -- first request, if it gave up on its call (timeout), cannot take the order back (see undo_purchase.lua).
    if item.keys[KEYS[slot]] then
      item.keys[KEYS[slot]] = earlier .. ' R' -- made by this call: written so by close_item
    else
      redis.call('SET', KEYS[slot], earlier .. ' R', 'KEEPTTL')
      if item.read then
        item.read[slot - 4] = earlier .. ' R'
      end
    end
  end
  return {'REPLAY', id, created, expires}
end

-- One purchase against the item as this call left it so far. Its reply, as purchase.lua documents it; an 'OK' reply
-- is completed by close_item.
local function decide(item, KEYS, i, ARGV, a)
  if item.cold then
    return {'COLD'}
  end
  local void = 4 + item.n + i
  if not item.no_void and redis.call('EXISTS', KEYS[void]) == 1 then
    return {'VOID'}
  end
  if ARGV[a + 4] ~= '' then
    local replay = earlier_answer(item, KEYS, i, ARGV, a)
    if replay then
      return replay
    end
  end
  if item.stale then
    return {'STALE'}
  end
  if item.retired then
    return {'RETIRED'}
  end
  if item.paused then
    return {'PAUSED'}
  end
  local closed = window(item)
  if closed then
    return closed
  end
  local expires = ARGV[a + 6]
  if item.ttl > 0 then
    expires = tostring(tonumber(ARGV[a + 5]) + item.ttl)
  end
  local quantity = tonumber(ARGV[a + 3])
  if item.available < quantity then
    return {'SOLD_OUT', item.available, item.seq}
  end
  local cap = tonumber(ARGV[11])
  if cap > 0 then
    item.pending = item.pending or redis.call('XLEN', KEYS[4])
    if item.pending + #item.made >= cap then
      return {'BUSY'}
    end
  end
  if item.limit > 0 then
    local user = ARGV[a + 2]
    local held = item.users[user] or tonumber(redis.call('HGET', KEYS[2], user) or '0')
    if held + quantity > item.limit then
      return {'LIMIT', item.limit}
    end
    item.users[user] = held + quantity
  end
  item.available = item.available - quantity
  item.taken = item.taken + quantity
  item.seq = item.seq + 1
  local made = {'OK', '', item.epoch, item.available, item.seq, expires, i, a}
  item.made[#item.made + 1] = made
  if ARGV[a + 4] ~= '' then
    item.keys[KEYS[4 + i]] = ARGV[a + 1] .. ' ' .. ARGV[a + 4] .. ' ' .. ARGV[a + 5] .. ' ' .. expires
  end
  return made
end

-- One purchase's stream entry, its held record (the undo of a purchase finds its entry through that record: written
-- at once, or added to item.held, which close_item writes in one HSET) and its key; its reply completed with the
-- entry id. Its own values are ARGV[made[8] + 1 .. 7]; its quantity goes as it came (a Lua number would be formatted
-- into a string again for each command).
-- The entry is one field, 'o': "orderId userId quantity createdAt expiresAt fingerprint Idempotency-Key pod epoch
-- cart", one space between values (none holds a space; fingerprint, key, epoch and cart may be empty). One field
-- instead of ten pairs is less for Redis to convert, store and send back to the relays (PendingStream reads both
-- forms: entries written by an older pod have the ten fields 'id', 'user', 'qty', ...). The values every purchase of
-- the call shares are joined once (item.tail).
local function write_made(item, made, KEYS, ARGV)
  local a = made[8]
  local id, user, quantity = ARGV[a + 1], ARGV[a + 2], ARGV[a + 3]
  if item.limit > 0 then
    redis.call('HINCRBY', KEYS[2], user, quantity)
  end
  local entry = redis.call('XADD', KEYS[4], '*', 'o', id .. ' ' .. user .. ' ' .. quantity .. ' ' .. ARGV[a + 5] ..
    ' ' .. made[6] .. ' ' .. ARGV[a + 4] .. ' ' .. ARGV[a + 7] .. item.tail)
  if item.held then
    local at = #item.held
    item.held[at + 1], item.held[at + 2] = id, user .. ' ' .. quantity .. ' ' .. entry
  else
    redis.call('HSET', KEYS[3], id, user .. ' ' .. quantity .. ' ' .. entry)
  end
  if ARGV[a + 4] ~= '' then
    local slot = 4 + made[7]
    redis.call('SET', KEYS[slot], item.keys[KEYS[slot]], 'EX', ARGV[8])
  end
  made[2] = entry
end

-- Writes what the call's purchases took (KEYS[1..4], the call's ARGV) and completes their replies with their entry
-- ids. The held records of a call of several go in one HSET: a command from Lua costs about as much again as the
-- write itself (its arguments and reply converted, the command looked up).
local function close_item(item, KEYS, ARGV)
  if #item.made == 0 then
    return
  end
  redis.call('HSET', KEYS[1], 'available', item.available, 'seq', item.seq)
  redis.call('HINCRBY', KEYS[1], 'reserved', item.taken)
  if redis.call('EXISTS', KEYS[4]) == 0 then
    redis.call('XGROUP', 'CREATE', KEYS[4], 'relay', '0', 'MKSTREAM')
  end
  item.tail = ' ' .. ARGV[9] .. ' ' .. item.epoch .. ' ' .. ARGV[13]
  if #item.made > 1 then
    item.held = {}
  end
  for _, made in ipairs(item.made) do
    write_made(item, made, KEYS, ARGV)
  end
  if item.held then
    redis.call('HSET', KEYS[3], unpack(item.held))
  end
  if ARGV[10] == 'OWN' then
    -- Every write-through call takes what is new, so what is new now is this call's entries alone.
    redis.call('XREADGROUP', 'GROUP', 'relay', ARGV[9], 'COUNT', tostring(#item.made + 100), 'STREAMS', KEYS[4], '>')
  end
end
