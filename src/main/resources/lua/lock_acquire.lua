-- Acquire a lock token with a lease, and issue a fencing token, in one atomic step.
-- KEYS[1] lock key    fs:{<sku>}:lock   (string: the holder's random token; always has a TTL)
-- KEYS[2] fence key   fs:{<sku>}:fence  (integer: last fencing token issued for this item)
-- ARGV[1] token       random, unique per grant
-- ARGV[2] lease       milliseconds
-- Returns the fencing token (>= 1) when granted, or the negated remaining lease of the current holder
-- in milliseconds (<= 0) when not, so the caller can size its wait.
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('INCR', KEYS[2])
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  ttl = 0
end
return -ttl
