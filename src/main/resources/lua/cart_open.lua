-- redis-lua: open a multi-item purchase (a cart). Its decision record lives in the user's slot, beside the user's
-- cart Idempotency-Keys, so that claiming the key and opening the record are one atomic step.
-- KEYS[1] fs:{u:<userId>}:cart:<purchaseId>  hash: state PENDING | COMMITTED | ABORTED, deadline (Redis ms), user,
--                                             key; once COMMITTED also created, expires, fp, lines (cart_decide.lua)
-- KEYS[2] fs:{u:<userId>}:cartkey:<Idempotency-Key>  string "purchaseId fingerprint" (unused without a key)
-- ARGV[1] purchaseId   ARGV[2] request fingerprint, '' without a key   ARGV[3] ms the cart may stay PENDING before
-- any relay may abort it   ARGV[4] Idempotency-Key TTL (s)   ARGV[5] decision record TTL (s)   ARGV[6] userId
-- ARGV[7] the Idempotency-Key, '' without one
-- Returns {'OK'} | {'REPLAY', purchaseId} | {'KEY_REUSED'}
if ARGV[2] ~= '' then
  local earlier = redis.call('GET', KEYS[2])
  if earlier then
    local id, used = string.match(earlier, '^(%S+) (%S+)$')
    if used ~= ARGV[2] then
      return {'KEY_REUSED'}
    end
    return {'REPLAY', id}
  end
  redis.call('SET', KEYS[2], ARGV[1] .. ' ' .. ARGV[2], 'EX', ARGV[4])
end
local now = redis.call('TIME')
local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('HSET', KEYS[1], 'state', 'PENDING', 'deadline', nowMs + tonumber(ARGV[3]), 'user', ARGV[6],
  'key', ARGV[7])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return {'OK'}
