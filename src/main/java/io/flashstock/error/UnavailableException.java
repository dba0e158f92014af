package io.flashstock.error;

/**
 * The service could not decide in time (retries exhausted, lock wait over, a store unreachable). Nothing was
 * deducted; the client may retry after {@code Retry-After}. The cause stays in the server log only.
 */
public class UnavailableException extends FlashstockException {

    public UnavailableException(String detail) {
        super(ProblemCode.UNAVAILABLE, detail);
    }

    public UnavailableException(String detail, Throwable cause) {
        super(ProblemCode.UNAVAILABLE, detail, cause);
    }
}
