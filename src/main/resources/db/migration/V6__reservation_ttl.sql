-- Per-item reservation TTL: how long a RESERVED order of this item holds its units; NULL: the service's default
-- (flashstock.reservation-ttl). Set when the item is created.
ALTER TABLE item
    ADD COLUMN reservation_ttl_seconds INT NULL,
    ADD CONSTRAINT ck_item_reservation_ttl CHECK (reservation_ttl_seconds IS NULL OR reservation_ttl_seconds > 0);
