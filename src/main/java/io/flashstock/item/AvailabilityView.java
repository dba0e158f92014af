package io.flashstock.item;

/**
 * {@code GET /items/{sku}/availability}: what a buyer's page polls. {@code state}: {@code on-sale}, {@code sold-out},
 * the sale window's {@code not-started}, {@code ended}, {@code paused}, or {@code retired} (the item sells no more).
 */
public record AvailabilityView(String sku, int available, String state) {

    /** {@code windowState}: the sale window's state; inside the window, sold-out when nothing is available. */
    public static AvailabilityView of(String sku, int available, String windowState) {
        boolean open = StockLevel.ON_SALE.equals(windowState);
        return new AvailabilityView(sku, available, open && available <= 0 ? "sold-out" : windowState);
    }

    /** A validator that changes exactly when the body does. */
    public String etag() {
        return available + "-" + state;
    }
}
