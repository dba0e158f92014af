package io.flashstock.item;

import java.util.ArrayList;
import java.util.List;

import io.flashstock.support.KeyFilter;
import io.quarkus.narayana.jta.QuarkusTransaction;

/**
 * The Idempotency-Keys of an item's single purchases as MySQL holds them, each with its user ({@link KeyFilter#entry}),
 * read in one index-only scan of {@code uk_purchase_order_user_idempotency (sku, user_id, idempotency_key)}. For the
 * filter a pod answers keyed purchases of a sold-out item from ({@link StockMirror#keysOf}).
 */
public final class StoredKeys {

    /** Most keys read for one item: an item with more is not answered from memory when a purchase has a key. */
    public static final int MAX = 200_000;

    private StoredKeys() {
    }

    /** The item's keyed orders as filter entries, or {@code null} when it has more than {@link #MAX}. */
    public static List<String> of(String sku) {
        return QuarkusTransaction.requiringNew().call(() -> {
            @SuppressWarnings("unchecked")
            List<Object[]> rows = Item.getEntityManager().createNativeQuery("SELECT user_id, idempotency_key "
                    + "FROM purchase_order WHERE sku = ?1 AND idempotency_key IS NOT NULL LIMIT ?2")
                    .setParameter(1, sku).setParameter(2, MAX + 1).getResultList();
            if (rows.size() > MAX) {
                return null;
            }
            List<String> entries = new ArrayList<>(rows.size());
            for (Object[] row : rows) {
                entries.add(KeyFilter.entry((String) row[0], (String) row[1]));
            }
            return entries;
        });
    }
}
