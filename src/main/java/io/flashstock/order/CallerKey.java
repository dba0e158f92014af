package io.flashstock.order;

/**
 * A single purchase's Idempotency-Key with the user it belongs to: with the item, what the key is unique by (MySQL's
 * {@code uk_purchase_order_user_idempotency (sku, user_id, idempotency_key)}). Another user's identical key is another
 * key.
 */
public record CallerKey(String userId, String key) {
}
