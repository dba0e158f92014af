-- redis-lua: take an item off the shared set of items with recent work, unless a pod announced it since.
-- KEYS[1] fs:active (sorted set: sku -> when a pod last announced work on it, epoch ms)
-- ARGV[1] sku   ARGV[2] cutoff (epoch ms): only a score at or before it is removed
-- The caller saw the item's pending stream empty; a pod that buys the item afterwards announces it again.
-- Returns 1 when removed, 0 when announced since (or not there).
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) <= tonumber(ARGV[2]) then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
