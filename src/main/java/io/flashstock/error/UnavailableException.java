package io.flashstock.error;

import java.util.function.Supplier;

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

    /**
     * What {@code read} returns; a failure of the store under it (a timeout, a cut connection, an error reply: not
     * one of ours) becomes this, with {@code detail}. For what a request waits on, so that it is answered 503 with a
     * Retry-After rather than a bare 500.
     */
    public static <T> T unlessFailing(String detail, Supplier<T> read) {
        try {
            return read.get();
        } catch (FlashstockException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new UnavailableException(detail, e);
        }
    }
}
