-- Every restock, written in the same transaction as the stock change: a restock whose commit answer was lost is
-- looked up by its id before answering, and a retry with the same Idempotency-Key adds nothing again.
CREATE TABLE restock (
    id              CHAR(36)    CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    sku             VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    quantity        INT         NOT NULL,
    idempotency_key VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL,
    created_at      DATETIME(6) NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT uk_restock_key UNIQUE (sku, idempotency_key),
    CONSTRAINT ck_restock_quantity CHECK (quantity > 0)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
