package io.flashstock.item;

/**
 * {@code GET /items/{sku}/availability}: what a buyer's page polls. {@code state} is {@code on-sale} or
 * {@code sold-out}.
 */
public record AvailabilityView(String sku, int available, String state) {

    public static AvailabilityView of(String sku, int available) {
        return new AvailabilityView(sku, available, available > 0 ? "on-sale" : "sold-out");
    }

    /** A validator that changes exactly when the body does. */
    public String etag() {
        return available + "-" + state;
    }
}
