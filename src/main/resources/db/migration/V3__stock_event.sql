-- redis-lua: changes of an item's counters that MySQL committed and the Redis hot stock has yet to mirror
-- (confirm, cancel, expiry, restock). Written in the same transaction as the change, deleted once Redis has it;
-- a sweeper re-applies rows a crashed pod left behind. Mirroring is idempotent, so a row applied twice counts once.
CREATE TABLE stock_event (
    id         CHAR(36)    CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    sku        VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    kind       VARCHAR(16) CHARACTER SET ascii NOT NULL,
    order_id   CHAR(36)    CHARACTER SET ascii COLLATE ascii_bin NULL,
    quantity   INT         NOT NULL,
    -- The item's version right after the change: a hot stock built from a snapshot at or after it has it already.
    item_version BIGINT    NOT NULL,
    created_at DATETIME(6) NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT ck_stock_event_kind CHECK (kind IN ('CONFIRMED', 'RETURNED', 'RESTOCKED')),
    INDEX ix_stock_event_sku (sku),
    INDEX ix_stock_event_created (created_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
