package io.flashstock.deduction;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collections;
import java.util.List;

import io.flashstock.db.DbErrors;
import io.flashstock.db.RetryableConflict;
import io.flashstock.order.Purchase;
import io.flashstock.order.PurchaseOrder;
import io.flashstock.support.Timestamps;
import jakarta.persistence.PersistenceException;
import org.hibernate.Session;
import org.hibernate.engine.spi.SessionImplementor;

/** Writes new orders and purchases to MySQL with plain JDBC multi-row INSERTs, in the caller's transaction. */
public final class OrderWriter {

    private OrderWriter() {
    }

    private static final String INSERT_ORDERS = "INSERT INTO purchase_order (id, sku, user_id, quantity, status,"
            + " idempotency_key, request_fingerprint, created_at, expires_at, updated_at, purchase_id) VALUES ";
    private static final String ORDER_ROW = "(?,?,?,?,?,?,?,?,?,?,?)";
    /** Most rows of one INSERT statement: about 40 KB of statement, far below any max_allowed_packet. */
    static final int MAX_ROWS_PER_INSERT = 128;
    /** The INSERT of 2^i rows, for every power of two up to {@link #MAX_ROWS_PER_INSERT}. */
    private static final String[] INSERT_ROWS = new String[Integer.numberOfTrailingZeros(MAX_ROWS_PER_INSERT) + 1];

    static {
        for (int i = 0; i < INSERT_ROWS.length; i++) {
            INSERT_ROWS[i] = INSERT_ORDERS + String.join(",", Collections.nCopies(1 << i, ORDER_ROW));
        }
    }

    /** The longest statement {@link #insert(List)} sends: the driver must keep it parsed (prepStmtCacheSqlLimit). */
    static String longestInsert() {
        return INSERT_ROWS[INSERT_ROWS.length - 1];
    }

    /**
     * Inserts the orders with multi-row INSERTs, in the caller's transaction. Plain JDBC rather than {@code persist()}:
     * the orders are new rows nobody reads back through this session, and for a relay batch of hundreds of orders
     * Hibernate's per-entity bookkeeping cost more CPU than the rest of the relay. The rows are written into the
     * statements here rather than left to the driver's batch rewrite ({@code rewriteBatchedStatements}), which
     * encodes every value once more to size its packets and copies every row's parameters (a third of the relay's CPU
     * in a JFR profile of a hot sell). Each statement holds a power of two of rows, at most
     * {@value #MAX_ROWS_PER_INSERT}: a batch of n orders takes at most n/128 + 7 statements of only 8 shapes, which
     * the driver parses once per connection and keeps ({@code cachePrepStmts}; a statement parsed anew for every
     * batch size cost a quarter of the relay's CPU). Pending changes of the session (an item's versioned update) are
     * flushed first, so the item's row lock still comes before the inserts' foreign-key checks. A concurrent insert
     * of the same Idempotency-Key surfaces as {@link RetryableConflict}: the next attempt replays that order.
     */
    public static void insert(List<PurchaseOrder> orders) {
        insert(null, orders);
    }

    /**
     * Inserts a multi-item purchase: its row, then its lines (each with {@code purchaseId} set), in the caller's
     * transaction, so that MySQL holds all of it or nothing. A concurrent insert of the same purchase or of the
     * user's Idempotency-Key surfaces as {@link RetryableConflict}: the next attempt finds it.
     */
    public static void insertCart(Purchase purchase, List<PurchaseOrder> lines) {
        insert(purchase, lines);
    }

    private static void insert(Purchase purchase, List<PurchaseOrder> orders) {
        Session session = PurchaseOrder.getSession();
        session.flush();
        try {
            session.doWork(connection -> {
                if (purchase != null) {
                    try (PreparedStatement insert = connection.prepareStatement(Purchase.INSERT)) {
                        insert.setString(1, purchase.id);
                        insert.setString(2, purchase.userId);
                        insert.setInt(3, purchase.lines);
                        insert.setString(4, purchase.idempotencyKey);
                        insert.setString(5, purchase.requestFingerprint);
                        insert.setObject(6, Timestamps.utc(purchase.createdAt));
                        insert.setObject(7, Timestamps.utc(purchase.expiresAt));
                        insert.executeUpdate();
                    } catch (SQLException e) {
                        throw session.unwrap(SessionImplementor.class).getJdbcServices().getSqlExceptionHelper()
                                .convert(e, "inserting purchase " + purchase.id, Purchase.INSERT);
                    }
                }
                for (int from = 0; from < orders.size();) {
                    int size = Math.min(MAX_ROWS_PER_INSERT, Integer.highestOneBit(orders.size() - from));
                    List<PurchaseOrder> rows = orders.subList(from, from + size);
                    from += size;
                    String sql = INSERT_ROWS[Integer.numberOfTrailingZeros(size)];
                    try (PreparedStatement insert = connection.prepareStatement(sql)) {
                        int column = 0;
                        for (PurchaseOrder order : rows) {
                            insert.setString(++column, order.id);
                            insert.setString(++column, order.sku);
                            insert.setString(++column, order.userId);
                            insert.setInt(++column, order.quantity);
                            insert.setString(++column, order.status.name());
                            insert.setString(++column, order.idempotencyKey);
                            insert.setString(++column, order.requestFingerprint);
                            insert.setObject(++column, Timestamps.utc(order.createdAt));
                            insert.setObject(++column, Timestamps.utc(order.expiresAt));
                            insert.setObject(++column, Timestamps.utc(order.updatedAt));
                            insert.setString(++column, order.purchaseId);
                        }
                        insert.executeUpdate();
                    } catch (SQLException e) {
                        throw session.unwrap(SessionImplementor.class).getJdbcServices().getSqlExceptionHelper()
                                .convert(e, "inserting " + rows.size() + " order(s)", INSERT_ORDERS);
                    }
                }
            });
        } catch (PersistenceException e) {
            if (DbErrors.isDuplicateKey(e)) {
                throw new RetryableConflict("Idempotency-Key or purchase inserted concurrently", e);
            }
            throw e;
        }
    }
}
