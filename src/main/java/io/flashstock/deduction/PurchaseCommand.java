package io.flashstock.deduction;

/**
 * A validated purchase: what every strategy receives.
 *
 * @param idempotencyKey the client's Idempotency-Key, or {@code null}
 * @param fingerprint    SHA-256 (hex) of what the key must keep meaning: user and quantity; {@code null} without a key
 */
public record PurchaseCommand(String sku, String userId, int quantity, String idempotencyKey, String fingerprint) {

    public boolean hasIdempotencyKey() {
        return idempotencyKey != null;
    }
}
