package io.flashstock.deduction.lua;

import java.time.Instant;

import io.flashstock.deduction.PurchaseCommand;
import io.flashstock.deduction.lua.HotStock.Decision;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.UnavailableException;
import io.flashstock.item.SaleWindow;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What the purchase script's refusals ({@code lua/purchase.lua}: any reply but OK and REPLAY) mean for the client,
 * for a single purchase and for a line of a cart alike. Counts the write-behind purchases refused because the relays
 * lag behind.
 */
final class Refusals {

    private final Counter busy;

    /** Every instance counts into the one {@code flashstock.lua.busy} counter of {@code registry}. */
    Refusals(MeterRegistry registry) {
        this.busy = Counter.builder("flashstock.lua.busy")
                .description("Write-behind purchases refused with 503 because the item's pending orders reached "
                        + "flashstock.lua.max-pending (the relays lag behind)")
                .register(registry);
    }

    /** Why the purchase script refused {@code command} at {@code now}. */
    FlashstockException of(PurchaseCommand command, Decision decision, Instant now) {
        return switch (decision.reply()) {
            case KEY_REUSED -> FlashstockException.keyReused();
            case SOLD_OUT -> FlashstockException.soldOut(command.sku(), command.quantity());
            case LIMIT -> FlashstockException.purchaseLimit(command.sku(), (int) decision.limit());
            case RETIRED -> FlashstockException.itemRetired(command.sku());
            case PAUSED -> FlashstockException.salePaused(command.sku());
            case ENDED -> FlashstockException.saleEnded(command.sku(), null);
            case NOT_STARTED -> FlashstockException.saleNotStarted(command.sku(), now.plusMillis(decision.limit()),
                    SaleWindow.secondsUntil(decision.limit()));
            case BUSY -> {
                busy.increment();
                yield new UnavailableException("Orders of this item are still being recorded; nothing was changed, "
                        + "try again.");
            }
            // VOID: this order id was given up on already, which cannot happen for a fresh id; COLD and STALE never
            // return (the item is warmed and asked again); OK and REPLAY are not refusals.
            case OK, REPLAY, VOID, COLD, STALE -> new UnavailableException(
                    "The purchase was abandoned; nothing was changed, try again.");
        };
    }
}
