package io.flashstock.error;

/**
 * A domain outcome that answers a request with a problem+json body. The message is the problem's
 * {@code detail}: written for the client, it never carries SQL, stack traces or host names.
 */
public class FlashstockException extends RuntimeException {

    private final ProblemCode code;
    /** Seconds for the Retry-After header; 0: the configured default where the status calls for one (503). */
    private final long retryAfterSeconds;
    /** The line of a multi-item purchase this refusal is about (problem member {@code sku}), or {@code null}. */
    private final String sku;

    public FlashstockException(ProblemCode code, String detail) {
        this(code, detail, null);
    }

    protected FlashstockException(ProblemCode code, String detail, Throwable cause) {
        this(code, detail, cause, 0);
    }

    private FlashstockException(ProblemCode code, String detail, Throwable cause, long retryAfterSeconds) {
        this(code, detail, cause, retryAfterSeconds, null);
    }

    private FlashstockException(ProblemCode code, String detail, Throwable cause, long retryAfterSeconds,
            String sku) {
        super(detail, cause, false, false);
        this.code = code;
        this.retryAfterSeconds = retryAfterSeconds;
        this.sku = sku;
    }

    /** This refusal, naming the line {@code sku} of a multi-item purchase it refused (problem member {@code sku}). */
    public FlashstockException forLine(String sku) {
        return new FlashstockException(code, getMessage(), getCause(), retryAfterSeconds, sku);
    }

    /** The refused line's sku of a multi-item purchase, or {@code null}. */
    public String sku() {
        return sku;
    }

    public ProblemCode code() {
        return code;
    }

    /** When the client may try again, in seconds (sent as Retry-After); 0 when the answer does not say. */
    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }

    /** Over a rate limit ({@code who}: "this user", "this client address"); retry after {@code seconds}. */
    public static FlashstockException tooManyRequests(String who, long seconds) {
        return new FlashstockException(ProblemCode.TOO_MANY_REQUESTS,
                "Too many purchases by " + who + "; nothing was done, try again in " + seconds + " s.", null, seconds);
    }

    public static FlashstockException invalid(String detail) {
        return new FlashstockException(ProblemCode.INVALID_REQUEST, detail);
    }

    /** A valid caller whose roles or token do not allow what it asked for. */
    public static FlashstockException forbidden(String detail) {
        return new FlashstockException(ProblemCode.FORBIDDEN, detail);
    }

    public static FlashstockException itemNotFound(String sku) {
        return new FlashstockException(ProblemCode.ITEM_NOT_FOUND, "No item with sku '" + sku + "'.");
    }

    public static FlashstockException orderNotFound(String orderId) {
        return new FlashstockException(ProblemCode.ORDER_NOT_FOUND, "No order with id '" + orderId + "'.");
    }

    public static FlashstockException purchaseNotFound(String purchaseId) {
        return new FlashstockException(ProblemCode.PURCHASE_NOT_FOUND, "No purchase with id '" + purchaseId + "'.");
    }

    public static FlashstockException soldOut(String sku, int requested) {
        return new FlashstockException(ProblemCode.SOLD_OUT,
                "Item '" + sku + "' has fewer than " + requested + " unit(s) available.");
    }

    public static FlashstockException purchaseLimit(String sku, int limit) {
        return new FlashstockException(ProblemCode.PURCHASE_LIMIT,
                "This purchase would take the user over the limit of " + limit + " unit(s) of item '" + sku + "'.");
    }

    public static FlashstockException saleNotStarted(String sku, java.time.Instant startsAt, long retryAfterSeconds) {
        return new FlashstockException(ProblemCode.SALE_NOT_STARTED,
                "The sale of item '" + sku + "' starts at " + startsAt + ".", null, retryAfterSeconds);
    }

    public static FlashstockException saleEnded(String sku, java.time.Instant endsAt) {
        return new FlashstockException(ProblemCode.SALE_ENDED,
                "The sale of item '" + sku + "' ended" + (endsAt == null ? "." : " at " + endsAt + "."));
    }

    public static FlashstockException salePaused(String sku) {
        return new FlashstockException(ProblemCode.SALE_PAUSED, "The sale of item '" + sku + "' is paused.");
    }

    /** An item whose sale ended for good ({@code POST /items/{sku}/retire}). */
    public static FlashstockException itemRetired(String sku) {
        return new FlashstockException(ProblemCode.ITEM_RETIRED, "Item '" + sku + "' is retired and sells no more.");
    }

    /** A change of the item that needs If-Match came without it. */
    public static FlashstockException preconditionRequired(String sku) {
        return new FlashstockException(ProblemCode.PRECONDITION_REQUIRED, "Changing item '" + sku
                + "' needs the header If-Match with its ETag (GET /items/" + sku + ").");
    }

    /** If-Match named another version than the item's {@code current} one. */
    public static FlashstockException versionMismatch(String sku, long current) {
        return new FlashstockException(ProblemCode.VERSION_MISMATCH, "Item '" + sku + "' is at version " + current
                + ", not the one in If-Match; nothing was changed. Read it again and decide anew.");
    }

    /** A read of an item's availability whose If-Match names another state than the one it would answer. */
    public static FlashstockException availabilityChanged(String sku) {
        return new FlashstockException(ProblemCode.VERSION_MISMATCH, "The availability of item '" + sku
                + "' is no longer the one in If-Match. Read it again without the header.");
    }

    /** A stock set to {@code stock}, below the {@code committed} units of RESERVED and CONFIRMED orders. */
    public static FlashstockException stockBelowCommitted(String sku, int stock, long committed) {
        return new FlashstockException(ProblemCode.STOCK_BELOW_COMMITTED, "Item '" + sku + "' cannot have a stock of "
                + stock + ": " + (committed < 0 ? "more units than that" : committed + " unit(s)")
                + " are reserved or sold; nothing was changed.");
    }

    public static FlashstockException keyReused() {
        return new FlashstockException(ProblemCode.IDEMPOTENCY_KEY_REUSED,
                "This Idempotency-Key was already used with a different request.");
    }

    public static FlashstockException itemExists(String sku) {
        return new FlashstockException(ProblemCode.ITEM_EXISTS, "An item with sku '" + sku + "' exists already.");
    }

    public static FlashstockException requestInProgress() {
        return new FlashstockException(ProblemCode.REQUEST_IN_PROGRESS,
                "A request with this Idempotency-Key is still being processed; try again shortly.");
    }

    /** {@code verb}: "confirmed" or "cancelled"; {@code status}: the order's status now. */
    public static FlashstockException orderNotReserved(String orderId, Object status, String verb) {
        return new FlashstockException(ProblemCode.ORDER_NOT_RESERVED,
                "Order '" + orderId + "' is " + status + " and cannot be " + verb + ".");
    }

    /**
     * The request reached the database, which did not answer whether it took effect (a commit whose answer was lost)
     * and cannot be asked now. The cause stays in the log.
     */
    public static FlashstockException outcomeUnknown(Throwable cause) {
        return new FlashstockException(ProblemCode.OUTCOME_UNKNOWN, "It is not known yet whether this request took "
                + "effect; repeat it with the same Idempotency-Key to get its outcome.", cause);
    }
}
