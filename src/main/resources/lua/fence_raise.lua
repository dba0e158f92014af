-- Raise an item's fencing counter to at least a floor (the last token MySQL accepted), for when Redis lost
-- the counter (restart without persistence, failover) and would otherwise issue tokens MySQL rejects.
-- KEYS[1] fence key
-- ARGV[1] floor
-- Returns the counter after the call.
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local floor = tonumber(ARGV[1])
if current < floor then
  redis.call('SET', KEYS[1], floor)
  return floor
end
return current
