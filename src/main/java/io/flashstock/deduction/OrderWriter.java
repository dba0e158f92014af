package io.flashstock.deduction;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.flashstock.db.DbErrors;
import io.flashstock.db.MultiRowInsert;
import io.flashstock.db.RetryableConflict;
import io.flashstock.item.Ledger;
import io.flashstock.order.OrderStatus;
import io.flashstock.order.Purchase;
import io.flashstock.order.PurchaseOrder;
import io.flashstock.support.Timestamps;
import jakarta.persistence.PersistenceException;
import org.hibernate.Session;
import org.hibernate.engine.spi.SessionImplementor;

/**
 * Writes new orders and purchases, and their reserve movements, to MySQL with plain JDBC multi-row INSERTs, in the
 * caller's transaction.
 */
public final class OrderWriter {

    private OrderWriter() {
    }

    private static final String INSERT_ORDERS = "INSERT INTO purchase_order (id, sku, user_id, quantity, status,"
            + " idempotency_key, request_fingerprint, created_at, expires_at, updated_at, purchase_id) VALUES ";
    /** Most rows of one INSERT statement. */
    static final int MAX_ROWS_PER_INSERT = MultiRowInsert.MAX_ROWS;
    /**
     * Every new order is {@link OrderStatus#RESERVED} and last updated when it was made
     * ({@link PurchaseOrder#reserved}): both are in the statement, not bound (MySQL reads {@code updated_at} from the
     * row's {@code created_at}, set earlier in it), because the driver's work goes per bound value and the relay binds
     * every value of its orders.
     */
    private static final MultiRowInsert<PurchaseOrder> INSERT = new MultiRowInsert<>(INSERT_ORDERS,
            "(?,?,?,?,'" + OrderStatus.RESERVED.name() + "',?,?,?,?,created_at,?)", (insert, column, order) -> {
                if (order.status != OrderStatus.RESERVED || !order.updatedAt.equals(order.createdAt)) {
                    throw new IllegalArgumentException("not a new order: " + order.id);
                }
                insert.setString(++column, order.id);
                insert.setString(++column, order.sku);
                insert.setString(++column, order.userId);
                insert.setInt(++column, order.quantity);
                insert.setString(++column, order.idempotencyKey);
                insert.setString(++column, order.requestFingerprint);
                insert.setLong(++column, Timestamps.asNumber(order.createdAt));
                insert.setLong(++column, Timestamps.asNumber(order.expiresAt));
                insert.setString(++column, order.purchaseId);
                return column;
            });

    /**
     * The longest statement {@link #insert(List)} sends for one item's orders, with their ledger rows: the driver
     * must keep it parsed (prepStmtCacheSqlLimit).
     */
    static String longestInsert() {
        return Ledger.longestWith(INSERT.longest());
    }

    /**
     * Inserts the orders with multi-row INSERTs ({@link MultiRowInsert}), in the caller's transaction, and with them
     * their {@code reserve} rows of the movement ledger ({@link Ledger}), in the same connection: every writer of new
     * orders (db-optimistic and redis-lock batches and carts, redis-lua's write-through and its relay) has moved their
     * units from available to reserved in this transaction, so the ledger follows the counters. A reserve row's actor
     * is the order's user (docs/api.md, "Movements"). Plain JDBC rather than {@code persist()}: the orders are new
     * rows nobody reads back through this session, and for a relay batch of hundreds of orders Hibernate's per-entity
     * bookkeeping cost more CPU than the rest of the relay (the rewrite of the driver's batches, a third of the relay's
     * CPU in a JFR profile of a hot sell). Pending changes of the session (an item's versioned update) are
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
                List<Ledger.Entry> reserves = new ArrayList<>(orders.size());
                for (PurchaseOrder order : orders) {
                    reserves.add(Ledger.Entry.reserve(order.sku, order.quantity, order.id, order.purchaseId,
                            order.userId));
                }
                try {
                    Ledger.writeReserves(connection, INSERT.rows(orders), reserves);
                } catch (SQLException e) {
                    throw session.unwrap(SessionImplementor.class).getJdbcServices().getSqlExceptionHelper()
                            .convert(e, "inserting " + orders.size() + " order(s) and their movements", INSERT_ORDERS);
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
