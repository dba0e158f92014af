-- Every order row goes into each of purchase_order's B-trees, and for one item MySQL inserts its orders one
-- transaction after another (each takes the item's row first): that serial work is the ceiling of a hot item's
-- write-behind relay, and what each write-through batch waits for. ix_purchase_order_user (sku, user_id, status) of
-- V1 was the one index no query needs:
--   the per-user limit (PurchaseOrder: sku = ? AND user_id = ? AND status IN held) ... a handful of rows of one user
--                                      and item, reached by uk_purchase_order_user_idempotency (sku, user_id, ...) or
--                                      ix_purchase_order_user_id (user_id, id), their status read from the row
--   the warm-up's held units per user (ItemSnapshot: sku = ? AND status IN held GROUP BY user_id) ... sums quantity,
--                                      which no index but the primary key holds: it read every row anyway (the
--                                      same 3.7 to 5.6 s for an item of 1.09 million orders, with or without it)
--   the listing by sku and user (OrderListing, V9) ...... ix_purchase_order_user_id: one user's orders in id order,
--                                      sku checked on each
--   fk_purchase_order_item ............................. keeps uk_purchase_order_user_idempotency and
--                                      ix_purchase_order_sku_id, both led by sku
-- Without it MySQL stored 200-order transactions (orders, their reserve movements, the item's row) 1.13 x as fast,
-- one connection on this machine with nothing else running (23,325 to 25,250 orders/s against 26,850 to 29,774;
-- docs/benchmarks.md). Dropped in place, purchases going on.
ALTER TABLE purchase_order
    DROP INDEX ix_purchase_order_user,
    ALGORITHM = INPLACE, LOCK = NONE;
