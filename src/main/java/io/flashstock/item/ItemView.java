package io.flashstock.item;

/** An item as the REST contract shows it: {@code stock == available + reserved + sold}. */
public record ItemView(String sku, String name, int stock, int available, int reserved, int sold,
        int perUserLimit, long version) {

    public static ItemView of(Item item) {
        return new ItemView(item.sku, item.name, item.stock, item.available, item.reserved, item.sold,
                item.perUserLimit, item.version);
    }
}
