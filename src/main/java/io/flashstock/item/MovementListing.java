package io.flashstock.item;

import java.util.List;

import io.flashstock.error.FlashstockException;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.panache.common.Sort;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Lists an item's movements in id (append) order, a page at a time ({@code GET /items/{sku}/movements}). One range of
 * the index {@code (sku, id)} per page: {@code WHERE sku = ? AND id > ? ORDER BY id LIMIT limit + 1} (the extra row
 * only tells whether a next page exists). Under write-behind the item's acknowledged orders are persisted first, as
 * for {@code GET /orders?sku=}, so their reserve movements are listed too.
 */
@ApplicationScoped
public class MovementListing {

    private final StockMirror mirror;

    MovementListing(StockMirror mirror) {
        this.mirror = mirror;
    }

    /** Up to {@code limit} movements of the item with an id above {@code after}; 404 for an unknown item. */
    public MovementPage list(String sku, long after, int limit) {
        if (QuarkusTransaction.requiringNew().call(() -> Item.count("sku", sku)) == 0) {
            throw FlashstockException.itemNotFound(sku);
        }
        mirror.persistPendingOf(sku);
        List<MovementView> found = QuarkusTransaction.requiringNew().call(() -> Movement
                .<Movement>find("sku = ?1 and id > ?2", Sort.ascending("id"), sku, after)
                .range(0, limit).list() // both bounds inclusive: limit + 1 rows
                .stream().map(MovementView::of).toList());
        boolean more = found.size() > limit;
        List<MovementView> page = more ? found.subList(0, limit) : found;
        return new MovementPage(page, more ? Long.toString(page.get(page.size() - 1).id()) : null);
    }
}
