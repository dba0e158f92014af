package io.flashstock.web;

import java.time.Instant;
import java.util.function.IntPredicate;

import io.flashstock.error.FlashstockException;

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
    /**
     * A caller's {@code X-Request-Id} that the service takes as its own (see {@link RequestIds}): 1 to 64 letters,
     * digits, {@code . _ : -}, safe to write into a log line.
     */
    public static final String REQUEST_ID = "^[A-Za-z0-9._:-]{1,64}$";
    /** A movement id as a cursor of {@code GET /items/{sku}/movements}: a decimal integer. */
    public static final String MOVEMENT_ID = "^[0-9]{1,18}$";

    /** Entries of a listing page ({@code GET /items}, {@code GET /orders}): {@code limit} when it is not given. */
    public static final int LIST_LIMIT_DEFAULT = 50;
    /** The most entries one listing page may ask for. */
    public static final int LIST_LIMIT_MAX = 200;

    public static final String SKU_MESSAGE =
            "must be 1-64 characters: letters, digits, '.', '_' or '-', starting with a letter or digit";
    public static final String USER_ID_MESSAGE = "must be 1-64 characters: letters, digits, '.', '_', '@' or '-'";
    public static final String IDEMPOTENCY_KEY_MESSAGE = "must be 1-64 printable ASCII characters";
    public static final String ORDER_ID_MESSAGE = "must be an order id as issued: a lower-case UUID";
    public static final String MOVEMENT_ID_MESSAGE = "must be a movement id as listed: a decimal integer";
    public static final String LIST_LIMIT_MESSAGE = "must be an integer from 1 to " + LIST_LIMIT_MAX;

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

    /**
     * Whether {@code sku} keeps {@link #SKU}: the same rule as the pattern (InputRulesTest holds the two together), by
     * a scan of its characters, for the paths that check it per purchase without a regular expression's matcher.
     */
    public static boolean isSku(String sku) {
        return sized(sku) && isLetterOrDigit(sku.charAt(0)) && all(sku, 1, c -> isLetterOrDigit(c) || c == '.'
                || c == '_' || c == '-');
    }

    /** Whether {@code userId} keeps {@link #USER_ID} (as {@link #isSku}, a scan). */
    public static boolean isUserId(String userId) {
        return sized(userId) && all(userId, 0, c -> isLetterOrDigit(c) || c == '.' || c == '_' || c == '@'
                || c == '-');
    }

    /** Whether {@code key} keeps {@link #IDEMPOTENCY_KEY} (as {@link #isSku}, a scan). */
    public static boolean isIdempotencyKey(String key) {
        return sized(key) && all(key, 0, InputRules::isPrintableAscii);
    }

    /** Whether {@code requestId} keeps {@link #REQUEST_ID} (as {@link #isSku}, a scan). */
    public static boolean isRequestId(String requestId) {
        return sized(requestId) && all(requestId, 0, c -> isLetterOrDigit(c) || c == '.' || c == '_' || c == ':'
                || c == '-');
    }

    /**
     * A printable ASCII character other than the space, {@code !} to {@code ~}: what an Idempotency-Key is made of,
     * and what a log line shows of a caller's text as it is.
     */
    public static boolean isPrintableAscii(int c) {
        return c >= 0x21 && c <= 0x7E;
    }

    /** 1 to 64 characters, the length every identifier rule above allows. */
    private static boolean sized(String text) {
        return text != null && !text.isEmpty() && text.length() <= 64;
    }

    /** Whether every character of {@code text} from {@code from} on is {@code allowed}. */
    private static boolean all(String text, int from, IntPredicate allowed) {
        for (int i = from; i < text.length(); i++) {
            if (!allowed.test(text.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** An ASCII letter or digit: {@code [A-Za-z0-9]}, not {@link Character#isLetterOrDigit}'s Unicode classes. */
    private static boolean isLetterOrDigit(int c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9';
    }

    /** Whether a sale-window instant is within the accepted range; null (no bound) always is. */
    public static boolean saleInstant(Instant instant) {
        return instant == null
                || !instant.isBefore(EARLIEST_SALE_INSTANT) && !instant.isAfter(LATEST_SALE_INSTANT);
    }

    /**
     * A listing's {@code limit} query parameter: {@link #LIST_LIMIT_DEFAULT} when absent, else a decimal integer from 1
     * to {@link #LIST_LIMIT_MAX}; anything else is 400 {@code invalid-request}. Read as text: a query parameter that
     * JAX-RS cannot convert would be a 404.
     */
    public static int listLimit(String limit) {
        if (limit == null) {
            return LIST_LIMIT_DEFAULT;
        }
        if (limit.matches("^[0-9]{1,3}$")) {
            int value = Integer.parseInt(limit);
            if (value >= 1 && value <= LIST_LIMIT_MAX) {
                return value;
            }
        }
        throw FlashstockException.invalid("limit: " + LIST_LIMIT_MESSAGE);
    }

    private InputRules() {
    }
}
