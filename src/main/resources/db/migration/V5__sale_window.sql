-- Sale windows: an item is bought only from sale_starts_at to sale_ends_at (either may be absent: no bound) and
-- while not paused. Judged by one clock for all pods: MySQL's (db-optimistic, redis-lock) or Redis's (redis-lua,
-- which mirrors the window into the hot stock through a SALE stock event).
ALTER TABLE item
    ADD COLUMN sale_starts_at DATETIME(6) NULL,
    ADD COLUMN sale_ends_at DATETIME(6) NULL,
    ADD COLUMN paused BOOLEAN NOT NULL DEFAULT FALSE,
    ADD CONSTRAINT ck_item_sale_window
        CHECK (sale_starts_at IS NULL OR sale_ends_at IS NULL OR sale_ends_at > sale_starts_at);

ALTER TABLE stock_event DROP CONSTRAINT ck_stock_event_kind;
ALTER TABLE stock_event
    ADD CONSTRAINT ck_stock_event_kind CHECK (kind IN ('CONFIRMED', 'RETURNED', 'RESTOCKED', 'SALE'));
