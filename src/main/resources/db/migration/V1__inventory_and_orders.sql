-- flashstock schema, owned by Flyway. Counters are kept so that stock = available + reserved + sold, and
-- the CHECK constraints are the last line of defence against oversell whatever a strategy does.

CREATE TABLE item (
    sku            VARCHAR(64)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    name           VARCHAR(200) NOT NULL,
    stock          INT          NOT NULL,
    available      INT          NOT NULL,
    reserved       INT          NOT NULL DEFAULT 0,
    sold           INT          NOT NULL DEFAULT 0,
    per_user_limit INT          NOT NULL DEFAULT 0,
    version        BIGINT       NOT NULL DEFAULT 0,
    created_at     DATETIME(6)  NOT NULL,
    updated_at     DATETIME(6)  NOT NULL,
    PRIMARY KEY (sku),
    CONSTRAINT ck_item_available_non_negative CHECK (available >= 0),
    CONSTRAINT ck_item_reserved_non_negative CHECK (reserved >= 0),
    CONSTRAINT ck_item_sold_non_negative CHECK (sold >= 0),
    CONSTRAINT ck_item_counters_balance CHECK (stock = available + reserved + sold),
    CONSTRAINT ck_item_per_user_limit CHECK (per_user_limit >= 0)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

CREATE TABLE purchase_order (
    id                  CHAR(36)    CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    sku                 VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    user_id             VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    quantity            INT         NOT NULL,
    status              VARCHAR(16) CHARACTER SET ascii NOT NULL,
    idempotency_key     VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL,
    request_fingerprint CHAR(64)    CHARACTER SET ascii NULL,
    created_at          DATETIME(6) NOT NULL,
    expires_at          DATETIME(6) NOT NULL,
    updated_at          DATETIME(6) NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT fk_purchase_order_item FOREIGN KEY (sku) REFERENCES item (sku),
    CONSTRAINT ck_purchase_order_quantity CHECK (quantity > 0),
    CONSTRAINT ck_purchase_order_status CHECK (status IN ('RESERVED', 'CONFIRMED', 'CANCELLED', 'EXPIRED')),
    CONSTRAINT ck_purchase_order_key_has_fingerprint
        CHECK (idempotency_key IS NULL OR request_fingerprint IS NOT NULL),
    -- An Idempotency-Key is scoped to the item it buys: one order per (sku, key), ever.
    CONSTRAINT uk_purchase_order_idempotency UNIQUE (sku, idempotency_key),
    -- Per-user limit: the user's RESERVED + CONFIRMED units of an item.
    INDEX ix_purchase_order_user (sku, user_id, status),
    -- Expiry job: due RESERVED orders, oldest first.
    INDEX ix_purchase_order_expiry (status, expires_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
