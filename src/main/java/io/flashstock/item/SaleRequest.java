package io.flashstock.item;

import java.time.Instant;

import io.flashstock.web.SaleInstant;

/**
 * Body of {@code PUT /items/{sku}/sale}: the whole window, replacing the last one. Absent {@code startsAt} or
 * {@code endsAt}: no bound; absent {@code paused}: not paused. Times are ISO-8601 instants
 * ({@code 2026-12-01T12:00:00Z}) from 1970-01-01T00:00:01Z to the end of 9999-12-31 ({@link SaleInstant}).
 */
public record SaleRequest(@SaleInstant Instant startsAt, @SaleInstant Instant endsAt, Boolean paused) {

    /** The window asked for; 400 when it ends before it starts. */
    public SaleWindow window() {
        return SaleWindow.of(startsAt, endsAt, paused);
    }
}
