-- The movement ledger: one append-only row per change of an item's counters, written in the change's own MySQL
-- transaction, so that the sums of an item's rows always equal its counters (GET /items/{sku}/report checks it).
-- Admin actions that change no counter (a sale window, a retire) have a row too, with every delta 0.
--   kind ........ created, restock, stock-set, reserve, confirm, cancel, expire, retire, sale-window, correction
--   *_delta ..... what the change added to each counter (negative when it took away)
--   order_id .... the order of a reserve, confirm, cancel or expire; the restock's id for a restock
--   purchase_id . the multi-item purchase a reserve belongs to
--   actor ....... the caller's token subject, or 'system' (expiry job, write-behind relay, reconcile, migration)
-- Rows are never updated or deleted by the service. GET /items/{sku}/movements pages by (sku, id).
CREATE TABLE movement (
    id              BIGINT      NOT NULL AUTO_INCREMENT,
    sku             VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    kind            VARCHAR(16) CHARACTER SET ascii NOT NULL,
    stock_delta     INT         NOT NULL,
    available_delta INT         NOT NULL,
    reserved_delta  INT         NOT NULL,
    sold_delta      INT         NOT NULL,
    order_id        CHAR(36)    CHARACTER SET ascii COLLATE ascii_bin NULL,
    purchase_id     CHAR(36)    CHARACTER SET ascii COLLATE ascii_bin NULL,
    actor           VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    created_at      DATETIME(6) NOT NULL,
    PRIMARY KEY (id),
    INDEX ix_movement_sku_id (sku, id),
    CONSTRAINT ck_movement_kind CHECK (kind IN ('created', 'restock', 'stock-set', 'reserve', 'confirm', 'cancel',
        'expire', 'retire', 'sale-window', 'correction')),
    CONSTRAINT ck_movement_balance CHECK (stock_delta = available_delta + reserved_delta + sold_delta)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- Items created before the ledger existed: one opening row each, so that their sums equal their counters.
INSERT INTO movement (sku, kind, stock_delta, available_delta, reserved_delta, sold_delta, actor, created_at)
SELECT sku, 'correction', stock, available, reserved, sold, 'system', NOW(6) FROM item;
