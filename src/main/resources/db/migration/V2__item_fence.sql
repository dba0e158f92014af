-- redis-lock: the last fencing token MySQL accepted for an item. A write carrying an older token (a lock holder
-- that paused past its lease) matches no row and is rejected.
ALTER TABLE item ADD COLUMN fence BIGINT NOT NULL DEFAULT 0 AFTER version;
