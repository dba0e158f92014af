-- Claims or renews a pod's strategy lease (io.flashstock.redis.StrategyLease): pods whose strategy keeps the stock
-- in Redis (family 'redis') and pods whose strategy keeps it in MySQL only (family 'mysql') never serve at the same
-- time. A pod gets or keeps its lease only while no live lease of the other family is left; expired leases (a pod
-- that died without releasing) are removed on the way. Expiry is Redis's clock, the one clock every pod shares.
-- KEYS[1] the leases hash: field "<family>|<strategy>|<pod>" -> expiry (ms)
-- ARGV[1] this pod's field, ARGV[2] its family, ARGV[3] the lease time (ms)
-- Returns {1, lease ms} when this pod holds the lease now; {0, field} with a field of the other family holding one
-- (this pod's own lease, if it had one, is removed: it must stop serving).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local leases = redis.call('HGETALL', KEYS[1])
local holder = nil
for i = 1, #leases, 2 do
  local field = leases[i]
  if tonumber(leases[i + 1]) <= now then
    redis.call('HDEL', KEYS[1], field)
  elseif holder == nil and string.sub(field, 1, #ARGV[2] + 1) ~= ARGV[2] .. '|' then
    holder = field
  end
end
if holder ~= nil then
  redis.call('HDEL', KEYS[1], ARGV[1])
  return {0, holder}
end
redis.call('HSET', KEYS[1], ARGV[1], now + tonumber(ARGV[3]))
return {1, tonumber(ARGV[3])}
