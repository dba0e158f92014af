package io.flashstock.item;

import java.util.List;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.panache.common.Sort;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Lists items in sku order, a page at a time ({@code GET /items?after=&limit=}). One range of the primary key per
 * page: {@code WHERE sku > ? ORDER BY sku LIMIT limit + 1} (the extra row only tells whether a next page exists).
 */
@ApplicationScoped
public class ItemListing {

    private final StockMirror mirror;

    ItemListing(StockMirror mirror) {
        this.mirror = mirror;
    }

    /**
     * Up to {@code limit} items whose sku sorts after {@code after} (null: from the first), each with the counters
     * {@code GET /items/{sku}} would show (redis-lua: the hot stock's, when it holds the item).
     */
    public ItemPage list(String after, int limit) {
        List<ItemView> stored = QuarkusTransaction.requiringNew().call(() -> Item
                .<Item>find("sku > ?1", Sort.ascending("sku"), after == null ? "" : after)
                .range(0, limit).list() // both bounds inclusive: limit + 1 rows
                .stream().map(ItemView::of).toList());
        boolean more = stored.size() > limit;
        List<ItemView> page = (more ? stored.subList(0, limit) : stored).stream().map(mirror::current).toList();
        return new ItemPage(page, more ? page.get(page.size() - 1).sku() : null);
    }
}
