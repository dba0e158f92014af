package io.flashstock.item;

import java.time.Instant;

/**
 * An item as the REST contract shows it: {@code stock == available + reserved + sold}, its sale window
 * ({@code saleStartsAt}/{@code saleEndsAt} null: no bound), and its own reservation TTL (null: the default).
 */
public record ItemView(String sku, String name, int stock, int available, int reserved, int sold,
        int perUserLimit, long version, Instant saleStartsAt, Instant saleEndsAt, boolean paused,
        Integer reservationTtlSeconds, boolean retired) {

    public static ItemView of(Item item) {
        return new ItemView(item.sku, item.name, item.stock, item.available, item.reserved, item.sold,
                item.perUserLimit, item.version, item.saleStartsAt, item.saleEndsAt, item.paused,
                item.reservationTtlSeconds, item.retired);
    }

    /** The strong entity tag of this version, as {@code ETag} carries it and {@code If-Match} names it. */
    public jakarta.ws.rs.core.EntityTag etag() {
        return new jakarta.ws.rs.core.EntityTag(Long.toString(version));
    }

    /** The same item with other counters (the hot stock's). */
    public ItemView withCounters(int stock, int available, int reserved, int sold) {
        return new ItemView(sku, name, stock, available, reserved, sold, perUserLimit, version, saleStartsAt,
                saleEndsAt, paused, reservationTtlSeconds, retired);
    }
}
