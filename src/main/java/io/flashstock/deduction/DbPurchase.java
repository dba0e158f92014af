package io.flashstock.deduction;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.flashstock.db.DbErrors;
import io.flashstock.db.RetryableConflict;
import io.flashstock.error.FlashstockException;
import io.flashstock.item.Item;
import io.flashstock.item.SaleWindow;
import io.flashstock.order.OrderIds;
import io.flashstock.order.OrderView;
import io.flashstock.order.PurchaseOrder;
import io.flashstock.support.Timestamps;
import jakarta.persistence.PersistenceException;
import org.hibernate.Session;
import org.hibernate.engine.spi.SessionImplementor;

/**
 * The steps of a purchase that the MySQL-deciding strategies share, each run inside the strategy's transaction.
 */
public final class DbPurchase {

    private DbPurchase() {
    }

    /** The earlier answer for a repeated Idempotency-Key, or {@code null}; 422 if the key meant another request. */
    public static PurchaseOutcome replayOrNull(PurchaseCommand command) {
        if (!command.hasIdempotencyKey()) {
            return null;
        }
        PurchaseOrder earlier = PurchaseOrder.findByIdempotencyKey(command.sku(), command.idempotencyKey());
        return earlier == null ? null : replay(command, OrderView.of(earlier), earlier.requestFingerprint);
    }

    /** The answer to a repeated Idempotency-Key whose first use made {@code earlier} with {@code fingerprint}. */
    public static PurchaseOutcome replay(PurchaseCommand command, OrderView earlier, String fingerprint) {
        if (!command.fingerprint().equals(fingerprint)) {
            throw FlashstockException.keyReused();
        }
        return new PurchaseOutcome(earlier, true);
    }

    /** The item, or 404. */
    public static Item item(String sku) {
        Item item = Item.findById(sku);
        if (item == null) {
            throw FlashstockException.itemNotFound(sku);
        }
        return item;
    }

    /**
     * Refuses the purchase if the item has not the units, or if the user, already holding {@code unitsHeld}, would
     * go over the limit.
     */
    public static void check(Item item, PurchaseCommand command, long unitsHeld) {
        checkWindow(item);
        if (item.available < command.quantity()) {
            throw FlashstockException.soldOut(command.sku(), command.quantity());
        }
        checkLimit(item, command, unitsHeld);
    }

    /** Refuses the purchase outside the item's sale window, judged by MySQL's clock (asked only when bounded). */
    public static void checkWindow(Item item) {
        SaleWindow window = item.saleWindow();
        if (window.paused() || window.bounded()) {
            window.check(item.sku, window.bounded() ? Item.databaseNow() : Instant.EPOCH);
        }
    }

    /** Refuses the purchase if the user, already holding {@code unitsHeld}, would go over the item's limit. */
    public static void checkLimit(Item item, PurchaseCommand command, long unitsHeld) {
        if (item.hasUserLimit() && unitsHeld + command.quantity() > item.perUserLimit) {
            throw FlashstockException.purchaseLimit(command.sku(), item.perUserLimit);
        }
    }

    /** Units the user holds in MySQL, or 0 without asking when the item has no limit. */
    public static long unitsHeld(Item item, String userId) {
        return item.hasUserLimit() ? PurchaseOrder.unitsHeld(item.sku, userId) : 0;
    }

    /** A new RESERVED order for the command, not yet persisted. */
    public static PurchaseOrder newOrder(PurchaseCommand command, Instant now, Duration ttl) {
        return PurchaseOrder.reserved(OrderIds.next(command.sku()), command.sku(), command.userId(), command.quantity(),
                command.idempotencyKey(), command.fingerprint(), now, ttl);
    }

    /** Inserts one RESERVED order for the command; see {@link #insert(List)}. */
    public static PurchaseOrder insertOrder(PurchaseCommand command, Instant now, Duration ttl) {
        PurchaseOrder order = newOrder(command, now, ttl);
        insert(List.of(order));
        return order;
    }

    private static final String INSERT_ORDER = "INSERT INTO purchase_order (id, sku, user_id, quantity, status,"
            + " idempotency_key, request_fingerprint, created_at, expires_at, updated_at)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

    /**
     * Inserts the orders as one JDBC batch, which the driver sends as multi-row INSERTs
     * ({@code rewriteBatchedStatements}), in the caller's transaction. Plain JDBC rather than {@code persist()}: the
     * orders are new rows nobody reads back through this session, and for a relay batch of hundreds of orders
     * Hibernate's per-entity bookkeeping cost more CPU than the rest of the relay. Pending changes of the session
     * (an item's versioned update) are flushed first, so the item's row lock still comes before the inserts'
     * foreign-key checks. A concurrent insert of the same Idempotency-Key surfaces as {@link RetryableConflict}: the
     * next attempt replays that order.
     */
    public static void insert(List<PurchaseOrder> orders) {
        Session session = PurchaseOrder.getSession();
        session.flush();
        try {
            session.doWork(connection -> {
                try (PreparedStatement insert = connection.prepareStatement(INSERT_ORDER)) {
                    for (PurchaseOrder order : orders) {
                        insert.setString(1, order.id);
                        insert.setString(2, order.sku);
                        insert.setString(3, order.userId);
                        insert.setInt(4, order.quantity);
                        insert.setString(5, order.status.name());
                        insert.setString(6, order.idempotencyKey);
                        insert.setString(7, order.requestFingerprint);
                        insert.setObject(8, Timestamps.utc(order.createdAt));
                        insert.setObject(9, Timestamps.utc(order.expiresAt));
                        insert.setObject(10, Timestamps.utc(order.updatedAt));
                        insert.addBatch();
                    }
                    insert.executeBatch();
                } catch (SQLException e) {
                    throw session.unwrap(SessionImplementor.class).getJdbcServices().getSqlExceptionHelper()
                            .convert(e, "inserting " + orders.size() + " order(s)", INSERT_ORDER);
                }
            });
        } catch (PersistenceException e) {
            if (DbErrors.isDuplicateKey(e)) {
                throw new RetryableConflict("Idempotency-Key inserted concurrently", e);
            }
            throw e;
        }
    }
}
