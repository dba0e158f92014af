-- Release a lock only if the caller still holds it (its token is still the value).
-- KEYS[1] lock key
-- ARGV[1] token
-- Returns 1 when released, 0 when the lock had already been lost (expired, or taken by another holder).
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
