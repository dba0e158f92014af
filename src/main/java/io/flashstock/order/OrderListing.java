package io.flashstock.order;

import java.util.List;

import io.flashstock.item.StockMirror;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.panache.common.Parameters;
import io.quarkus.panache.common.Sort;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Lists orders in id order, a page at a time ({@code GET /orders}): ids are time-ordered ({@link OrderIds}), so this
 * is creation order. One query per page, {@code WHERE id > :after [AND sku = ?] [AND status = ?] [AND user_id = ?]
 * ORDER BY id LIMIT limit + 1} (the extra row only tells whether a next page exists), on the indexes of
 * {@code V9__listing_indexes.sql}.
 *
 * <p>Orders acknowledged but not yet in MySQL (redis-lua write-behind): with {@code sku}, the item's are persisted
 * first, so the listing has every order acknowledged before it; without, the page says how many there were
 * ({@link OrderPage#pendingInRedis}), counted before the query, so never too few.
 */
@ApplicationScoped
public class OrderListing {

    private final StockMirror mirror;

    OrderListing(StockMirror mirror) {
        this.mirror = mirror;
    }

    /** Which orders to list; a null field does not filter. */
    public record Filter(String sku, OrderStatus status, String userId) {
    }

    /** Up to {@code limit} orders matching {@code filter} whose id sorts after {@code after} (null: from the first). */
    public OrderPage list(Filter filter, String after, int limit) {
        long pending;
        if (filter.sku() != null) {
            mirror.persistPendingOf(filter.sku());
            pending = 0;
        } else {
            pending = mirror.pendingOrders();
        }
        StringBuilder where = new StringBuilder("id > :after");
        Parameters parameters = Parameters.with("after", after == null ? "" : after);
        if (filter.sku() != null) {
            where.append(" and sku = :sku");
            parameters.and("sku", filter.sku());
        }
        if (filter.status() != null) {
            where.append(" and status = :status");
            parameters.and("status", filter.status());
        }
        if (filter.userId() != null) {
            where.append(" and userId = :userId");
            parameters.and("userId", filter.userId());
        }
        List<OrderView> found = QuarkusTransaction.requiringNew().call(() -> PurchaseOrder
                .<PurchaseOrder>find(where.toString(), Sort.ascending("id"), parameters)
                .range(0, limit).list() // both bounds inclusive: limit + 1 rows
                .stream().map(OrderView::of).toList());
        boolean more = found.size() > limit;
        List<OrderView> page = more ? found.subList(0, limit) : found;
        return new OrderPage(page, more ? page.get(page.size() - 1).orderId() : null, pending);
    }
}
