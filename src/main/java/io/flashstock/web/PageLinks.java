package io.flashstock.web;

import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriBuilder;

/**
 * How every listing answers a page: 200 with the page, and while there is a next one, {@code Link: <...>; rel="next"}
 * naming the same query with {@code after} set to the page's cursor and the same {@code limit}.
 */
public final class PageLinks {

    private PageLinks() {
    }

    /**
     * The answer for {@code page}. {@code query}: the listing's path with its filters (not {@code after} nor
     * {@code limit}); {@code next}: the page's cursor, null on the last page.
     */
    public static Response page(Object page, String next, UriBuilder query, int limit) {
        Response.ResponseBuilder response = Response.ok(page);
        if (next != null) {
            response.link(query.queryParam("after", next).queryParam("limit", limit).build(), "next");
        }
        return response.build();
    }
}
