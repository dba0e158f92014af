package io.flashstock.item;

import java.time.Instant;

/**
 * Body of {@code PUT /items/{sku}/sale}: the whole window, replacing the last one. Absent {@code startsAt} or
 * {@code endsAt}: no bound; absent {@code paused}: not paused. Times are ISO-8601 instants
 * ({@code 2026-12-01T12:00:00Z}).
 */
public record SaleRequest(Instant startsAt, Instant endsAt, Boolean paused) {

    /** The window asked for; 400 when it ends before it starts. */
    public SaleWindow window() {
        return SaleWindow.of(startsAt, endsAt, paused);
    }
}
