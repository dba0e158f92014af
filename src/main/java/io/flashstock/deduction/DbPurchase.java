package io.flashstock.deduction;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.flashstock.db.DbErrors;
import io.flashstock.db.RetryableConflict;
import io.flashstock.deduction.Combiner.Result;
import io.flashstock.error.FlashstockException;
import io.flashstock.item.Item;
import io.flashstock.item.SaleWindow;
import io.flashstock.order.OrderIds;
import io.flashstock.order.OrderView;
import io.flashstock.order.Purchase;
import io.flashstock.order.PurchaseOrder;
import io.flashstock.order.PurchaseView;
import io.flashstock.support.Timestamps;
import jakarta.persistence.PersistenceException;
import org.hibernate.Session;
import org.hibernate.engine.spi.SessionImplementor;

/**
 * The steps of a purchase that the MySQL-deciding strategies share, each run inside the strategy's transaction. The
 * answers after a lost commit are {@link LostPurchases}'.
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

    // ---- multi-item purchases ---------------------------------------------------------------------------------

    /** How a strategy reserves one line of a cart, in the cart's transaction; throws the line's refusal. */
    @FunctionalInterface
    public interface LineReservation {
        /** Reserves the line's units and returns its item (read after the change, under its row lock). */
        Item reserve(CartCommand.Line line, Instant now);
    }

    /**
     * The earlier purchase for a repeated Idempotency-Key of the user, or {@code null}; 422 if the key meant another
     * request.
     */
    public static CartOutcome cartReplayOrNull(CartCommand cart) {
        if (!cart.hasIdempotencyKey()) {
            return null;
        }
        Purchase earlier = Purchase.findByIdempotencyKey(cart.userId(), cart.idempotencyKey());
        if (earlier == null) {
            return null;
        }
        if (!cart.fingerprint().equals(earlier.requestFingerprint)) {
            throw FlashstockException.keyReused();
        }
        return new CartOutcome(cartView(earlier.id), true);
    }

    /** The purchase with its lines as MySQL holds them, or {@code null} (in the caller's transaction). */
    public static PurchaseView cartView(String purchaseId) {
        List<PurchaseOrder> lines = PurchaseOrder.linesOf(purchaseId);
        return lines.isEmpty() ? null : PurchaseView.of(purchaseId, lines.stream().map(OrderView::of).toList());
    }

    /**
     * One attempt of a cart for the MySQL-deciding strategies, in the caller's transaction: the replay of its
     * Idempotency-Key, or each line reserved in sku order by {@code reservation} (a refusal names its line and rolls
     * the whole transaction back, so no line keeps a unit), then the purchase and its lines inserted. The lines expire
     * together, at the shortest reservation TTL of their items.
     */
    public static CartOutcome decideCart(CartCommand cart, Duration defaultTtl, LineReservation reservation) {
        CartOutcome replay = cartReplayOrNull(cart);
        if (replay != null) {
            return replay;
        }
        Instant now = Timestamps.now();
        Duration ttl = null;
        for (CartCommand.Line line : cart.lines()) {
            Item item;
            try {
                item = reservation.reserve(line, now);
            } catch (FlashstockException refused) {
                throw refused.forLine(line.sku());
            }
            Duration own = item.reservationTtl(defaultTtl);
            ttl = ttl == null || own.compareTo(ttl) < 0 ? own : ttl;
        }
        String purchaseId = OrderIds.next(cart.lines().get(0).sku());
        Purchase purchase = newPurchase(purchaseId, cart, now, now.plus(ttl));
        List<PurchaseOrder> lines = cart.lines().stream()
                .map(line -> cartLine(OrderIds.next(line.sku()), purchase, line)).toList();
        insertCart(purchase, lines);
        return new CartOutcome(PurchaseView.of(purchaseId, lines.stream().map(OrderView::of).toList()), false);
    }

    /**
     * Purchases of one item decided together in the caller's transaction: the item read once, each purchase decided in
     * order (Idempotency-Key, sale window, availability, the user's limit), then one update of the counters (versioned:
     * Hibernate's flush of the item) and one insert of the orders. Returns, per purchase in order, its
     * {@link PurchaseOutcome} or the {@link FlashstockException} that refuses it alone.
     */
    public static List<Result<PurchaseOutcome>> decideBatch(List<PurchaseCommand> batch, Duration defaultTtl) {
        String sku = batch.get(0).sku();
        Item item = Item.findById(sku);
        List<Result<PurchaseOutcome>> results = new ArrayList<>(batch.size());
        if (item == null) {
            batch.forEach(p -> results.add(Result.refused(FlashstockException.itemNotFound(sku))));
            return results;
        }
        Instant now = Timestamps.now();
        Map<String, PurchaseOrder> byKey = new HashMap<>();
        Map<String, Long> heldByUser = new HashMap<>();
        List<PurchaseOrder> orders = new ArrayList<>();
        for (PurchaseCommand command : batch) {
            try {
                PurchaseOrder sameKey = command.hasIdempotencyKey() ? byKey.get(command.idempotencyKey()) : null;
                PurchaseOutcome replay = sameKey != null
                        ? replay(command, OrderView.of(sameKey), sameKey.requestFingerprint)
                        : replayOrNull(command);
                if (replay != null) {
                    results.add(Result.of(replay));
                    continue;
                }
                long held = heldByUser.computeIfAbsent(command.userId(), user -> unitsHeld(item, user));
                check(item, command, held);
                item.reserve(command.quantity(), now);
                heldByUser.put(command.userId(), held + command.quantity());
                PurchaseOrder order = newOrder(command, now, item.reservationTtl(defaultTtl));
                if (command.hasIdempotencyKey()) {
                    byKey.put(command.idempotencyKey(), order);
                }
                orders.add(order);
                results.add(Result.of(new PurchaseOutcome(OrderView.of(order), false)));
            } catch (FlashstockException refused) {
                results.add(Result.refused(refused));
            }
        }
        if (!orders.isEmpty()) {
            // Versioned UPDATE first: it takes the item's row lock before the order inserts' foreign-key checks
            // take shared ones, so two writers never deadlock on the same item.
            Item.flush();
            insert(orders);
        }
        return results;
    }

    /** A purchase row for {@code cart}, not yet inserted. */
    public static Purchase newPurchase(String purchaseId, CartCommand cart, Instant now, Instant expiresAt) {
        Purchase purchase = new Purchase();
        purchase.id = purchaseId;
        purchase.userId = cart.userId();
        purchase.lines = cart.lines().size();
        purchase.idempotencyKey = cart.idempotencyKey();
        purchase.requestFingerprint = cart.fingerprint();
        purchase.createdAt = now;
        purchase.expiresAt = expiresAt;
        return purchase;
    }

    /** A RESERVED line of {@code purchase}, not yet inserted: no Idempotency-Key of its own (the purchase has it). */
    public static PurchaseOrder cartLine(String orderId, Purchase purchase, CartCommand.Line line) {
        PurchaseOrder order = PurchaseOrder.reserved(orderId, line.sku(), purchase.userId, line.quantity(), null, null,
                purchase.createdAt, Duration.between(purchase.createdAt, purchase.expiresAt));
        order.purchaseId = purchase.id;
        return order;
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
