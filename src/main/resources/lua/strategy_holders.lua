-- The pods that hold a strategy lease now (io.flashstock.redis.LeaseHolders, for the sale page): the fields of the
-- leases hash whose expiry is still ahead by Redis's clock, each with the milliseconds it has left. Reads only. The
-- hash holds one field per serving pod (strategy_lease.lua removes expired ones), so the answer grows with the pods,
-- never with requests.
-- KEYS[1] the leases hash: field "<family>|<strategy>|<pod>" -> expiry (ms)
-- Returns {field, ms left, field, ms left, ...}
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local leases = redis.call('HGETALL', KEYS[1])
local live = {}
for i = 1, #leases, 2 do
  local left = tonumber(leases[i + 1]) - now
  if left > 0 then
    live[#live + 1] = leases[i]
    live[#live + 1] = left
  end
end
return live
