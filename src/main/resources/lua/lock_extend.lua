-- Extend a held lock's lease. Never re-creates a key: a renewal that arrives after release or expiry
-- cannot bring the lock back.
-- KEYS[1] lock key
-- ARGV[1] token
-- ARGV[2] lease       milliseconds
-- Returns 1 when extended, 0 when the lock was lost.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
