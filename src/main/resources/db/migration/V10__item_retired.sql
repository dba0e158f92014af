-- Retired items sell no more: every purchase (single or a cart's line) is refused with 409 item-retired, in every
-- strategy (MySQL strategies read this column in the purchase; redis-lua mirrors it into the hot stock's 'retired'
-- field with the sale window, through a SALE stock event). Their reservations still confirm, cancel and expire,
-- and the item stays readable. Set by POST /items/{sku}/retire, guarded by the item's version (If-Match).
ALTER TABLE item
    ADD COLUMN retired BOOLEAN NOT NULL DEFAULT FALSE;
