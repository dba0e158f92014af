-- Indexes for the order listing, GET /orders (order/OrderListing): each page is one query
--   SELECT ... FROM purchase_order WHERE id > :after [AND sku = ?] [AND status = ?] [AND user_id = ?]
--   ORDER BY id LIMIT :limit + 1
-- which must read an index range in id order and stop after limit + 1 rows: no filesort, no scan of the table.
--   no filter ........................ the primary key (id)
--   sku (alone or with status) ....... ix_purchase_order_sku_id:    sku = ? AND id > ?, in id order
--   user_id (alone or with status) ... ix_purchase_order_user_id:   user_id = ? AND id > ?, in id order
--   status alone ..................... ix_purchase_order_status_id: status = ? AND id > ?, in id order
--   sku and user_id (and status) ..... ix_purchase_order_user (sku, user_id, status) of V1 narrows to one user's
--                                      orders of one item (a handful); with status too, InnoDB's extended key
--                                      (sku, user_id, status, id) gives them in id order
-- A second filter given with sku, user_id or status is checked on the rows the index range reads; of two indexes
-- that fit, the optimizer takes the one with the fewer rows (sku and status: ix_..._status_id for a rare status).
-- GET /items needs none: WHERE sku > :after ORDER BY sku is a range of item's primary key.
--
-- One ALTER, built in place while purchases go on (ALGORITHM=INPLACE, LOCK=NONE: the statement fails rather than
-- block writes where the server cannot do that).
ALTER TABLE purchase_order
    ADD INDEX ix_purchase_order_sku_id (sku, id),
    ADD INDEX ix_purchase_order_user_id (user_id, id),
    ADD INDEX ix_purchase_order_status_id (status, id),
    ALGORITHM = INPLACE, LOCK = NONE;
