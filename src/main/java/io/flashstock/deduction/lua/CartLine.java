package io.flashstock.deduction.lua;

/**
 * A line of a multi-item purchase that holds its units in Redis ({@link Carts}): the order id and the stream entry of
 * its purchase, and the hot stock's epoch it was taken in. Kept in the cart's decision record as text.
 */
public record CartLine(String sku, int quantity, String orderId, String entryId, String epoch) {

    String encode() {
        return sku + ' ' + quantity + ' ' + orderId + ' ' + entryId + ' ' + epoch;
    }

    static CartLine decode(String text) {
        String[] parts = text.split(" ", 5);
        return new CartLine(parts[0], Integer.parseInt(parts[1]), parts[2], parts[3],
                parts.length > 4 ? parts[4] : "");
    }
}
