-- redis-lua: the one decision of a cart, made once by compare-and-set from PENDING, whoever makes it: the request
-- (COMMITTED once every line holds its units, ABORTED on a refusal) or any pod's relay (ABORTED_IF_DUE: a cart still
-- PENDING past its deadline, whose request died or hangs); and once from COMMITTED to ABORTED when MySQL refuses the
-- cart (REFUSED). Lines of a COMMITTED cart are persisted together, lines of an ABORTED one are given back one by one
-- (undo_purchase.lua, once each).
-- KEYS[1] fs:{u:<userId>}:cart:<purchaseId>   KEYS[2] fs:{u:<userId>}:cartkey:<Idempotency-Key> (or the bare prefix)
-- ARGV[1] 'COMMITTED' | 'ABORTED' | 'ABORTED_IF_DUE' | 'REFUSED' (MySQL refused the COMMITTED cart and its lines
--         were given back: ABORTED after all, so that no replay answers a purchase MySQL does not have and its key
--         runs anew, as a refused single purchase's does)   ARGV[2] purchaseId
-- COMMITTED also: ARGV[3] created (epoch s)   ARGV[4] expires (epoch s)   ARGV[5] fingerprint, '' without a key
--                 ARGV[6] the lines, ',' between lines: "sku quantity orderId streamEntryId epoch"
--                 ARGV[7] seconds the record now lives (it must outlast any wait for MySQL: it is what persists the
--                 cart; the relay brings it back to the Idempotency-Key's TTL once the cart is stored)
-- ABORTED, ABORTED_IF_DUE and REFUSED also: ARGV[3] seconds an aborted record lives at most: as long as a line of its cart
--                 may still wait in a stream for a relay. A refused cart (a made-up sku, a sold-out line) then leaves
--                 nothing for the Idempotency-Key's 24 h; a line met after that finds no record, and is given back
--                 unless MySQL has its purchase, as an ABORTED one is.
-- REFUSED also: ARGV[4] the sku of the line MySQL had too few units for ('' when none or not known), kept as the
--                 record's 'short': whoever takes that line back drops its units (undo_purchase.lua DROP)
-- Returns {state after the call}: 'COMMITTED' | 'ABORTED' | 'PENDING' (not due yet) | 'MISSING' (no record)
local state = redis.call('HMGET', KEYS[1], 'state', 'deadline')
if not state[1] then
  return {'MISSING'}
end
if state[1] ~= (ARGV[1] == 'REFUSED' and 'COMMITTED' or 'PENDING') then
  return {state[1]}
end
if ARGV[1] == 'ABORTED_IF_DUE' then
  local now = redis.call('TIME')
  local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
  if nowMs < tonumber(state[2]) then
    return {'PENDING'}
  end
end
if ARGV[1] == 'COMMITTED' then
  redis.call('HSET', KEYS[1], 'state', 'COMMITTED', 'created', ARGV[3], 'expires', ARGV[4], 'fp', ARGV[5],
    'lines', ARGV[6])
  redis.call('EXPIRE', KEYS[1], ARGV[7])
  return {'COMMITTED'}
end
redis.call('HSET', KEYS[1], 'state', 'ABORTED')
if ARGV[1] == 'REFUSED' and ARGV[4] and ARGV[4] ~= '' then
  redis.call('HSET', KEYS[1], 'short', ARGV[4])
end
local ttl = redis.call('TTL', KEYS[1])
if ttl < 0 or ttl > tonumber(ARGV[3]) then
  redis.call('EXPIRE', KEYS[1], ARGV[3])
end
-- An aborted cart holds nothing: its Idempotency-Key is released, so that a retry runs anew.
local earlier = redis.call('GET', KEYS[2])
if earlier and string.sub(earlier, 1, string.len(ARGV[2]) + 1) == ARGV[2] .. ' ' then
  redis.call('DEL', KEYS[2])
end
return {'ABORTED'}
