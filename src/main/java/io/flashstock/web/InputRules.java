package io.flashstock.web;

import java.time.Instant;

/**
 * The input rules of the REST contract, in one place. Identifier patterns also keep Redis key syntax
 * ({@code { } * :} and spaces) out of every key built from them.
 */
public final class InputRules {

    /** An item's sku. */
    public static final String SKU = "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$";
    /** A buyer's id. */
    public static final String USER_ID = "^[A-Za-z0-9._@-]{1,64}$";
    /** An Idempotency-Key: 1 to 64 printable ASCII characters. */
    public static final String IDEMPOTENCY_KEY = "^[\\x21-\\x7E]{1,64}$";
    /** An order id as issued: a lower-case UUID. */
    public static final String ORDER_ID = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$";

    public static final String SKU_MESSAGE =
            "must be 1-64 characters: letters, digits, '.', '_' or '-', starting with a letter or digit";
    public static final String USER_ID_MESSAGE = "must be 1-64 characters: letters, digits, '.', '_', '@' or '-'";
    public static final String IDEMPOTENCY_KEY_MESSAGE = "must be 1-64 printable ASCII characters";

    /**
     * The earliest sale-window instant ({@code startsAt}, {@code endsAt}): one second after the epoch, so that no
     * bound is ever 0 or negative in epoch terms (the hot stock keeps 0 for "no bound", see {@code lua/purchase.lua}).
     */
    public static final Instant EARLIEST_SALE_INSTANT = Instant.parse("1970-01-01T00:00:01Z");
    /** The latest sale-window instant: the end of 9999-12-31, the last one MySQL's {@code DATETIME(6)} holds. */
    public static final Instant LATEST_SALE_INSTANT = Instant.parse("9999-12-31T23:59:59.999999Z");
    public static final String SALE_INSTANT_MESSAGE =
            "must be an instant from 1970-01-01T00:00:01Z to 9999-12-31T23:59:59.999999Z";

    /** The request header that makes a purchase or restock safe to retry. */
    public static final String IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
    /** The response header of an answer that repeats the first request with the same Idempotency-Key. */
    public static final String REPLAYED_HEADER = "Idempotent-Replayed";

    /** Whether a sale-window instant is within the accepted range; null (no bound) always is. */
    public static boolean saleInstant(Instant instant) {
        return instant == null
                || !instant.isBefore(EARLIEST_SALE_INSTANT) && !instant.isAfter(LATEST_SALE_INSTANT);
    }

    private InputRules() {
    }
}
