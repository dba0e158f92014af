package io.flashstock.item;

import java.time.Duration;
import java.time.Instant;

import io.flashstock.error.FlashstockException;

/**
 * When an item may be bought: from {@code startsAt} (null: no bound) until {@code endsAt} (null: no bound), while not
 * {@code paused}. The one place the window is judged; the time comes from one clock for all pods (MySQL's or Redis's),
 * never a pod's own. {@code lua/purchase.lua} applies the same rules inside the purchase script.
 */
public record SaleWindow(Instant startsAt, Instant endsAt, boolean paused) {

    /** A window from a request's fields; 400 {@code invalid-request} when it ends before it starts. */
    public static SaleWindow of(Instant startsAt, Instant endsAt, Boolean paused) {
        if (startsAt != null && endsAt != null && !endsAt.isAfter(startsAt)) {
            throw FlashstockException.invalid("endsAt: must be after startsAt");
        }
        return new SaleWindow(startsAt, endsAt, paused != null && paused);
    }

    /** Whether judging it needs the clock (a start or an end is set). */
    public boolean bounded() {
        return startsAt != null || endsAt != null;
    }

    /** {@code on-sale}, {@code not-started}, {@code ended} or {@code paused} at {@code now}. */
    public String state(Instant now) {
        if (paused) {
            return "paused";
        }
        if (startsAt != null && now.isBefore(startsAt)) {
            return "not-started";
        }
        if (endsAt != null && !now.isBefore(endsAt)) {
            return "ended";
        }
        return "on-sale";
    }

    /**
     * Refuses a purchase outside the window at {@code now}: 409 sale-paused, sale-not-started (with Retry-After: the
     * seconds to the start) or sale-ended.
     */
    public void check(String sku, Instant now) {
        switch (state(now)) {
            case "paused" -> throw FlashstockException.salePaused(sku);
            case "not-started" -> throw FlashstockException.saleNotStarted(sku, startsAt,
                    secondsUntil(Duration.between(now, startsAt).toMillis()));
            case "ended" -> throw FlashstockException.saleEnded(sku, endsAt);
            default -> {
                // on sale
            }
        }
    }

    /** Whole seconds, rounded up, for Retry-After (at least 1). */
    public static long secondsUntil(long millis) {
        return Math.max(1, (millis + 999) / 1000);
    }
}
