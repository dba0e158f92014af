-- redis-lua: entries whose orders are in MySQL now leave the item's pending stream: acknowledged in the consumer
-- group 'relay' and deleted in one step, so that no entry is ever left acknowledged but still in the stream.
-- KEYS[1] fs:{sku}:orders stream
-- ARGV    the entry ids
-- Returns the number of entries deleted.
if #ARGV == 0 or redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('XACK', KEYS[1], 'relay', unpack(ARGV))
return redis.call('XDEL', KEYS[1], unpack(ARGV))
