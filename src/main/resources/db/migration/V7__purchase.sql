-- Multi-item purchases (docs/multi-item-purchases.md): one purchase row and one purchase_order row per line, all
-- inserted in one transaction, so MySQL never holds some lines of a purchase without the others.

CREATE TABLE purchase (
    id                  CHAR(36)    CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    user_id             VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    line_count          INT         NOT NULL,
    idempotency_key     VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL,
    request_fingerprint CHAR(64)    CHARACTER SET ascii NULL,
    created_at          DATETIME(6) NOT NULL,
    expires_at          DATETIME(6) NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT ck_purchase_lines CHECK (line_count BETWEEN 1 AND 20),
    CONSTRAINT ck_purchase_key_has_fingerprint CHECK (idempotency_key IS NULL OR request_fingerprint IS NOT NULL),
    -- A purchase's Idempotency-Key is scoped to its user: one purchase per (user, key), ever.
    CONSTRAINT uk_purchase_idempotency UNIQUE (user_id, idempotency_key)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

ALTER TABLE purchase_order
    ADD COLUMN purchase_id CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NULL,
    ADD CONSTRAINT fk_purchase_order_purchase FOREIGN KEY (purchase_id) REFERENCES purchase (id),
    ADD INDEX ix_purchase_order_purchase (purchase_id);
