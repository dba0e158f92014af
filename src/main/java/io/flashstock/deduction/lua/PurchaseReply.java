package io.flashstock.deduction.lua;

/** What {@code lua/purchase.lua} answers, parsed once from the script's first reply element. */
public enum PurchaseReply {
    /** Deducted; the order is pending in the item's stream. */
    OK,
    /** The Idempotency-Key was used with the same request before: the first order again, nothing deducted. */
    REPLAY,
    /** The Idempotency-Key was used with a different request: nothing deducted. */
    KEY_REUSED,
    /** Not enough units available: nothing deducted. */
    SOLD_OUT,
    /** The user would go over the item's limit: nothing deducted. */
    LIMIT,
    /** The item is retired: it sells no more, nothing deducted. */
    RETIRED,
    /** The item's sale is paused: nothing deducted. */
    PAUSED,
    /** The item's sale window has not opened (Redis's clock); the reply carries the milliseconds to the start. */
    NOT_STARTED,
    /** The item's sale window has closed: nothing deducted. */
    ENDED,
    /** The item's stream holds {@code flashstock.lua.max-pending} entries already (write-behind): nothing deducted. */
    BUSY,
    /** This order id was given up on already (a tombstone): nothing deducted. */
    VOID,
    /** Redis has no hot stock for the item (never warmed, unknown item, or Redis lost it): nothing deducted. */
    COLD,
    /** The item's hot stock is of another generation than the pod's: nothing deducted; warm and ask again. */
    STALE;

    static PurchaseReply parse(String reply) {
        try {
            return valueOf(reply);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("purchase.lua answered " + reply, e);
        }
    }
}
