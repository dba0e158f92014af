-- An Idempotency-Key belongs to its caller (docs/design.md, "Hostile callers"): a single purchase's key is scoped to
-- (sku, user), as a cart's is to its user (V7). Before, one order per (sku, key): another user's identical key was
-- refused 422, which told that someone had used it, and a user could take a predictable key before its owner did.
--
-- One ALTER, so the table is never without a unique index on its keys: the new index is built (in place, with
-- writes going on) while the old one still refuses duplicates, and the statement swaps them at its end, atomically.
-- Two statements would leave a moment with neither, in which a retry racing its first request could insert a second
-- order. Every key of every existing order stays (no row changes), and no row can conflict: (sku, key) unique implies
-- (sku, user_id, key) unique. The new index and ix_purchase_order_user start with sku: fk_purchase_order_item keeps
-- its index. The lookups by key now name the user too (PurchaseOrder), so they use the whole new index.
ALTER TABLE purchase_order
    DROP INDEX uk_purchase_order_idempotency,
    ADD CONSTRAINT uk_purchase_order_user_idempotency UNIQUE (sku, user_id, idempotency_key);
