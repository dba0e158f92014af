package io.flashstock.error;

/**
 * The problem codes of the REST contract. Each ends the {@code type} URI of a problem+json answer.
 */
public enum ProblemCode {
    INVALID_REQUEST("invalid-request", 400, "Invalid request"),
    /** No bearer token, or one that is expired, unsigned, wrongly signed, of another issuer or without groups. */
    UNAUTHENTICATED("unauthenticated", 401, "Unauthenticated"),
    /** A valid token whose roles do not allow the call (or a buyer acting for another user). */
    FORBIDDEN("forbidden", 403, "Forbidden"),
    NOT_FOUND("not-found", 404, "Not found"),
    ITEM_NOT_FOUND("item-not-found", 404, "Item not found"),
    ORDER_NOT_FOUND("order-not-found", 404, "Order not found"),
    PURCHASE_NOT_FOUND("purchase-not-found", 404, "Purchase not found"),
    METHOD_NOT_ALLOWED("method-not-allowed", 405, "Method not allowed"),
    NOT_ACCEPTABLE("not-acceptable", 406, "Not acceptable"),
    ITEM_EXISTS("item-exists", 409, "Item exists"),
    SOLD_OUT("sold-out", 409, "Sold out"),
    PURCHASE_LIMIT("purchase-limit", 409, "Purchase limit reached"),
    ORDER_NOT_RESERVED("order-not-reserved", 409, "Order not reserved"),
    /** The item's sale window has not opened; sent with Retry-After (seconds to the start). */
    SALE_NOT_STARTED("sale-not-started", 409, "Sale not started"),
    SALE_ENDED("sale-ended", 409, "Sale ended"),
    SALE_PAUSED("sale-paused", 409, "Sale paused"),
    REQUEST_IN_PROGRESS("request-in-progress", 409, "Request in progress"),
    /** A stock set below the units held by RESERVED and CONFIRMED orders (reserved + sold); nothing changed. */
    STOCK_BELOW_COMMITTED("stock-below-committed", 409, "Stock below committed units"),
    /** The item was retired: it sells no more (its reservations still confirm, cancel and expire). */
    ITEM_RETIRED("item-retired", 409, "Item retired"),
    /** An If-Match naming a version of the item that is not its current one; nothing changed. */
    VERSION_MISMATCH("version-mismatch", 412, "Version mismatch"),
    PAYLOAD_TOO_LARGE("payload-too-large", 413, "Payload too large"),
    UNSUPPORTED_MEDIA_TYPE("unsupported-media-type", 415, "Unsupported media type"),
    IDEMPOTENCY_KEY_REUSED("idempotency-key-reused", 422, "Idempotency key reused"),
    /** A change that must name the version it is based on (If-Match) came without one; nothing changed. */
    PRECONDITION_REQUIRED("precondition-required", 428, "Precondition required"),
    /** A buyer (or a client address) went over its rate limit; nothing was done. Sent with Retry-After. */
    TOO_MANY_REQUESTS("too-many-requests", 429, "Too many requests"),
    INTERNAL_ERROR("internal-error", 500, "Internal error"),
    UNAVAILABLE("unavailable", 503, "Service unavailable"),
    /** The request may or may not have taken effect; a retry with the same Idempotency-Key tells which. */
    OUTCOME_UNKNOWN("outcome-unknown", 503, "Outcome unknown");

    private final String code;
    private final int status;
    private final String title;

    ProblemCode(String code, int status, String title) {
        this.code = code;
        this.status = status;
        this.title = title;
    }

    public String code() {
        return code;
    }

    public int status() {
        return status;
    }

    public String title() {
        return title;
    }

    /** The code for a framework-level HTTP status (404 on an unknown path, 415, ...). */
    public static ProblemCode forStatus(int status) {
        return switch (status) {
            case 401 -> UNAUTHENTICATED;
            case 403 -> FORBIDDEN;
            case 404 -> NOT_FOUND;
            case 405 -> METHOD_NOT_ALLOWED;
            case 406 -> NOT_ACCEPTABLE;
            case 413 -> PAYLOAD_TOO_LARGE;
            case 415 -> UNSUPPORTED_MEDIA_TYPE;
            case 503 -> UNAVAILABLE;
            default -> status >= 500 ? INTERNAL_ERROR : INVALID_REQUEST;
        };
    }
}
