-- redis-lua: what the settlement report (GET /items/{sku}/report) compares with MySQL, read in one atomic step, so
-- that no purchase, relay settle or mirrored change lands between the counters and the pending orders. Reads only.
-- KEYS[1] fs:{sku}:stock    hash: stock, available, reserved, sold, gen (see purchase.lua, warm.lua)
-- KEYS[2] fs:{sku}:orders   stream: orders acknowledged here and not yet settled in MySQL: an entry's units are the
--                           third value of its field 'o' (see purchase_rules.lua), or field 'qty' (an older pod's)
-- No ARGV.
-- Returns {0} when the item has no hot stock (never warmed here, or Redis lost it: the next purchase warms it from
-- MySQL), else {1, stock, available, reserved, sold, gen, pending orders, pending units}. The stream is bounded by
-- flashstock.lua.max-pending under write-behind and holds only requests in flight under write-through.
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {0}
end
local c = redis.call('HMGET', KEYS[1], 'stock', 'available', 'reserved', 'sold', 'gen')
local orders = 0
local units = 0
for _, entry in ipairs(redis.call('XRANGE', KEYS[2], '-', '+')) do
  local fields = entry[2]
  for i = 1, #fields, 2 do
    if fields[i] == 'o' then
      orders = orders + 1
      units = units + tonumber(string.match(fields[i + 1], '^%S+ %S+ (%d+) '))
    elseif fields[i] == 'qty' then
      orders = orders + 1
      units = units + tonumber(fields[i + 1])
    end
  end
end
return {1, tonumber(c[1] or '0'), tonumber(c[2] or '0'), tonumber(c[3] or '0'), tonumber(c[4] or '0'), c[5] or '',
  orders, units}
