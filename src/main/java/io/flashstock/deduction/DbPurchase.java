package io.flashstock.deduction;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.flashstock.deduction.Combiner.Result;
import io.flashstock.error.FlashstockException;
import io.flashstock.item.Item;
import io.flashstock.item.SaleWindow;
import io.flashstock.order.CallerKey;
import io.flashstock.order.OrderIds;
import io.flashstock.order.OrderView;
import io.flashstock.order.Purchase;
import io.flashstock.order.PurchaseOrder;
import io.flashstock.order.PurchaseView;
import io.flashstock.support.Timestamps;

/**
 * The decisions of a purchase that the MySQL-deciding strategies share, each run inside the strategy's transaction:
 * a cart, a batch of single purchases, and the checks they make. Replays are {@link Replays}'; the inserts,
 * {@link OrderWriter}'s; the answers after a lost commit, {@link LostPurchases}'.
 */
public final class DbPurchase {

    private DbPurchase() {
    }

    /** How a strategy reserves one line of a cart, in the cart's transaction; throws the line's refusal. */
    @FunctionalInterface
    public interface LineReservation {
        /** Reserves the line's units and returns its item (read after the change, under its row lock). */
        Item reserve(CartCommand.Line line, Instant now);
    }

    /**
     * One attempt of a cart for the MySQL-deciding strategies, in the caller's transaction: the replay of its
     * Idempotency-Key, or each line reserved in sku order by {@code reservation} (a refusal names its line and rolls
     * the whole transaction back, so no line keeps a unit), then the purchase and its lines inserted. The lines expire
     * together, at the shortest reservation TTL of their items.
     */
    public static CartOutcome decideCart(CartCommand cart, Duration defaultTtl, LineReservation reservation) {
        CartOutcome replay = Replays.cartReplayOrNull(cart);
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
        List<PurchaseOrder> lines = new ArrayList<>(cart.lines().size());
        for (CartCommand.Line line : cart.lines()) {
            lines.add(cartLine(OrderIds.ofLine(purchaseId, lines.size(), line.sku()), purchase, line));
        }
        OrderWriter.insertCart(purchase, lines);
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
        Map<CallerKey, PurchaseOrder> byKey = new HashMap<>(); // each user's keys
        Map<String, Long> heldByUser = new HashMap<>();
        List<PurchaseOrder> orders = new ArrayList<>();
        for (PurchaseCommand command : batch) {
            try {
                PurchaseOrder sameKey = command.hasIdempotencyKey() ? byKey.get(callerKey(command)) : null;
                PurchaseOutcome replay = sameKey != null
                        ? Replays.replay(command, OrderView.of(sameKey), sameKey.requestFingerprint)
                        : Replays.replayOrNull(command);
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
                    byKey.put(callerKey(command), order);
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
            OrderWriter.insert(orders);
        }
        return results;
    }

    private static CallerKey callerKey(PurchaseCommand command) {
        return new CallerKey(command.userId(), command.idempotencyKey());
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

    /**
     * Refuses the purchase of a retired item (409 item-retired), and outside the item's sale window, judged by MySQL's
     * clock (asked only when bounded).
     */
    public static void checkWindow(Item item) {
        if (item.retired) {
            throw FlashstockException.itemRetired(item.sku);
        }
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
}
