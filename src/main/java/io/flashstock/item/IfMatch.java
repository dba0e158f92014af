package io.flashstock.item;

import java.util.ArrayList;
import java.util.List;

import io.flashstock.error.FlashstockException;

/**
 * The {@code If-Match} header of a change of an item (RFC 9110 §13.1.1): the item's ETags ({@code "<version>"}, as
 * {@code GET /items/{sku}} answers) the change is based on, or {@code *} (any version). A weak tag ({@code W/"5"})
 * never matches (strong comparison); a header that is not a list of quoted tags is 400.
 */
public record IfMatch(boolean any, List<String> tags) {

    public static final String HEADER = "If-Match";

    /** The parsed header; null when absent. */
    public static IfMatch parse(String header) {
        if (header == null) {
            return null;
        }
        String trimmed = header.trim();
        if (trimmed.equals("*")) {
            return new IfMatch(true, List.of());
        }
        List<String> tags = new ArrayList<>();
        int i = 0;
        while (i < trimmed.length()) {
            boolean weak = trimmed.startsWith("W/", i);
            int open = weak ? i + 2 : i;
            int close = open < trimmed.length() && trimmed.charAt(open) == '"' ? trimmed.indexOf('"', open + 1) : -1;
            if (close < 0) {
                throw FlashstockException.invalid("If-Match: must be the item's ETag, a quoted version such as \"3\"");
            }
            if (!weak) {
                tags.add(trimmed.substring(open + 1, close));
            }
            i = close + 1;
            while (i < trimmed.length() && (trimmed.charAt(i) == ' ' || trimmed.charAt(i) == ',')) {
                i++;
            }
        }
        if (tags.isEmpty() && !trimmed.contains("W/")) {
            throw FlashstockException.invalid("If-Match: must be the item's ETag, a quoted version such as \"3\"");
        }
        return new IfMatch(false, List.copyOf(tags));
    }

    /** Whether an item at {@code version} matches. */
    public boolean matches(long version) {
        return any || tags.contains(Long.toString(version));
    }

    /** 428 when the header is missing (a change that needs it). */
    static IfMatch required(IfMatch ifMatch, String sku) {
        if (ifMatch == null) {
            throw FlashstockException.preconditionRequired(sku);
        }
        return ifMatch;
    }

    /** 412 unless an item at {@code version} matches. */
    void check(String sku, long version) {
        if (!matches(version)) {
            throw FlashstockException.versionMismatch(sku, version);
        }
    }
}
