package io.flashstock.web;

import java.util.concurrent.ThreadLocalRandom;

/**
 * The id that ties a request's log lines together ({@code X-Request-Id}): the caller's own when it is short and safe
 * to write into a log line ({@link InputRules#REQUEST_ID}, checked by a scan), else a new one of 16 hex digits.
 * Whatever else a caller sends there (spaces, quotes, line breaks, a token) never reaches a log.
 */
public final class RequestIds {

    /** The header a request id comes in and goes back out with. */
    public static final String HEADER = "X-Request-Id";

    /** The MDC key of the id (in the console format as {@code %X{requestId}}). */
    public static final String MDC_KEY = "requestId";

    private RequestIds() {
    }

    /** {@code offered} (the request's header, or null) when it is safe, else a new id. */
    public static String accept(String offered) {
        return InputRules.isRequestId(offered) ? offered : generate();
    }

    /** A new id: 64 random bits as 16 hex digits (unique enough to correlate; not a secret). */
    static String generate() {
        String hex = Long.toHexString(ThreadLocalRandom.current().nextLong());
        return hex.length() == 16 ? hex : "0".repeat(16 - hex.length()) + hex;
    }
}
