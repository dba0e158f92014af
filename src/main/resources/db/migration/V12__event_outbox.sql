-- Sale events (docs/events.md): the movement ledger is the outbox. Every event is derived from a movement row, which
-- is written in the change's own transaction, so nothing here keeps a second record of the facts. What is added:
--   event_pending  one row per item with movements that may not be published yet. Every ledger write upserts it in
--                  the change's transaction (touched counts the writes); the publisher deletes it after publishing
--                  what it read, and only if no write touched it since (touched unchanged).
--   event_cursor   per item: the last movement published, and the item's counters right after it (what tells a
--                  sell-out or units coming back from the next movements).
--   event_bucket   64 rows. A publisher holds the row locks of the buckets it works (SELECT ... FOR UPDATE SKIP
--                  LOCKED) until it has published and moved their cursors, so one item's events are published by one
--                  pod at a time, in order, and pods share the buckets between them. An item's bucket is
--                  CRC32(sku) % 64.
-- And a movement kind for an extended reservation: it moves no counter, but consumers hear of it (order.extended).
CREATE TABLE event_pending (
    sku     VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    bucket  SMALLINT    NOT NULL,
    touched BIGINT      NOT NULL DEFAULT 1,
    PRIMARY KEY (sku),
    INDEX ix_event_pending_bucket (bucket)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

CREATE TABLE event_cursor (
    sku         VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    movement_id BIGINT      NOT NULL,
    stock       INT         NOT NULL,
    available   INT         NOT NULL,
    reserved    INT         NOT NULL,
    sold        INT         NOT NULL,
    PRIMARY KEY (sku)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

CREATE TABLE event_bucket (
    bucket SMALLINT NOT NULL,
    PRIMARY KEY (bucket)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

INSERT INTO event_bucket (bucket)
WITH RECURSIVE b (n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM b WHERE n < 63)
SELECT n FROM b;

-- What the ledger held before events existed counts as published: no flood of history at the first start.
INSERT INTO event_cursor (sku, movement_id, stock, available, reserved, sold)
SELECT sku, MAX(id), SUM(stock_delta), SUM(available_delta), SUM(reserved_delta), SUM(sold_delta)
FROM movement GROUP BY sku;

ALTER TABLE movement
    DROP CONSTRAINT ck_movement_kind,
    ADD CONSTRAINT ck_movement_kind CHECK (kind IN ('created', 'restock', 'stock-set', 'reserve', 'confirm',
        'cancel', 'expire', 'extend', 'retire', 'sale-window', 'correction'));
