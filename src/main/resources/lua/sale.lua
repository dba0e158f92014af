-- redis-lua: mirror an item's sale window and retirement (already committed in MySQL) into its hot stock, newest
-- version only.
-- KEYS[1] stock hash   KEYS[2] the item's lock: held while a pod rebuilds the hash (see transition.lua), and then the
--         item counts as cold
-- ARGV[1] start (epoch ms; '0': none, and a bound is never 0, see purchase.lua)   ARGV[2] end (the same)
-- ARGV[3] paused ('1' or '0')   ARGV[7] retired ('1' or '0'; absent: '0'): the item sells no more (purchase.lua)
-- ARGV[4] the item's MySQL version with that window   ARGV[5] the units-back channel (see transition.lua): pods
--         forget what they knew of the item, its state included   ARGV[6] the pod's hot-stock generation (see
--         transition.lua)
-- Returns the item's new seq (> 0) when set; 0 when the hash has that window or a newer one; -1 when the item is cold
-- (its next warm-up reads the window from MySQL).
if redis.call('HGET', KEYS[1], 'gen') ~= ARGV[6] or redis.call('EXISTS', KEYS[2]) == 1 then
  return -1
end
if tonumber(ARGV[4]) <= tonumber(redis.call('HGET', KEYS[1], 'salever') or '0') then
  return 0
end
redis.call('HSET', KEYS[1], 'starts', ARGV[1], 'ends', ARGV[2], 'paused', ARGV[3], 'salever', ARGV[4],
  'retired', ARGV[7] or '0')
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('PUBLISH', ARGV[5], KEYS[1] .. ' ' .. string.format('%d', seq))
return seq
