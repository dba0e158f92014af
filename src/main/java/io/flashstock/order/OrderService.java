package io.flashstock.order;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.db.ConflictRetry;
import io.flashstock.db.LostCommit;
import io.flashstock.db.LostCommit.Landing;
import io.flashstock.error.FlashstockException;
import io.flashstock.item.StockEvent;
import io.flashstock.item.Availability;
import io.flashstock.item.Item;
import io.flashstock.item.Ledger;
import io.flashstock.item.StockMirror;
import io.flashstock.redis.RateLimiter;
import io.flashstock.support.Timestamps;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Reads orders and moves them out of RESERVED. Each transition is one conditional update
 * ({@code UPDATE purchase_order SET status = ? WHERE id = ? AND status = 'RESERVED'}) followed, only when it
 * changed the row, by the move of the units in the same transaction. The conditional update takes the order's
 * row lock, so of concurrent confirm / cancel / expiry calls exactly one changes the row: units come back
 * exactly once. (No {@code SELECT ... FOR UPDATE OF}: MariaDB does not accept Hibernate's MySQL 8 syntax.)
 * Lock order everywhere: order rows, then the item row.
 */
@ApplicationScoped
public class OrderService {

    /** How far back an order id may date and still be pending in Redis (write-behind). */
    private static final Duration PENDING_WINDOW = Duration.ofMinutes(10);

    private final ConflictRetry retry;
    private final StockMirror mirror;
    private final Availability availability;
    private final OrderExtension extension;
    private final Duration maxTtl;
    private final RateLimiter rateLimiter;

    OrderService(ConflictRetry retry, StockMirror mirror, Availability availability, OrderExtension extension,
            RateLimiter rateLimiter, FlashstockConfig config) {
        this.retry = retry;
        this.rateLimiter = rateLimiter;
        this.mirror = mirror;
        this.availability = availability;
        this.extension = extension;
        this.maxTtl = config.reservationCap();
    }

    public OrderView get(String orderId) {
        persistIfPending(orderId);
        return retry.inNewTransactions(() -> OrderView.of(find(orderId)));
    }

    /**
     * The order, if {@code owner} (when present) is its user; else 404 {@code order-not-found}, exactly as for an
     * order that does not exist, so a buyer cannot learn which other orders exist.
     */
    public OrderView get(String orderId, Optional<String> owner) {
        OrderView order = get(orderId);
        if (owner.isPresent() && !owner.get().equals(order.userId())) {
            throw FlashstockException.orderNotFound(orderId);
        }
        return order;
    }

    /**
     * RESERVED → CONFIRMED (paid): the units move from reserved to sold. Confirming twice is a no-op. A line of a
     * multi-item purchase moves with every other line of it.
     */
    public OrderView confirm(String orderId, String actor) {
        return lineOf(orderId, move(orderId, false, actor, OrderStatus.CONFIRMED, StockEvent.Kind.CONFIRMED,
                Item::sellReserved, status -> status == OrderStatus.CONFIRMED, "confirmed"));
    }

    // ---- multi-item purchases: the lines move together ----------------------------------------------------------

    /**
     * The purchase with all its lines, if {@code owner} (when present) is its user; else 404
     * {@code purchase-not-found}, as for a purchase that does not exist.
     */
    public PurchaseView getPurchase(String purchaseId, Optional<String> owner) {
        persistIfPending(purchaseId, true);
        PurchaseView purchase = retry.inNewTransactions(() -> purchaseView(purchaseId));
        if (owner.isPresent() && !owner.get().equals(purchase.userId())) {
            throw FlashstockException.purchaseNotFound(purchaseId);
        }
        return purchase;
    }

    /** Every line RESERVED → CONFIRMED in one transaction, or none (409 if any line is no longer RESERVED). */
    public PurchaseView confirmPurchase(String purchaseId, String actor) {
        return PurchaseView.of(purchaseId, move(purchaseId, true, actor, OrderStatus.CONFIRMED,
                StockEvent.Kind.CONFIRMED, Item::sellReserved, status -> status == OrderStatus.CONFIRMED, "confirmed"));
    }

    /**
     * Every line RESERVED → CANCELLED in one transaction, units back once each; lines already CANCELLED or EXPIRED
     * stay as they are; 409 if a line is CONFIRMED. A purchase of someone other than {@code owner} is 404.
     */
    public PurchaseView cancelPurchase(String purchaseId, Optional<String> owner, String actor) {
        if (owner.isPresent()) {
            getPurchase(purchaseId, owner);
        }
        return PurchaseView.of(purchaseId, move(purchaseId, true, actor, OrderStatus.CANCELLED,
                StockEvent.Kind.RETURNED, Item::returnReserved, status -> status != OrderStatus.CONFIRMED,
                "cancelled"));
    }

    private static PurchaseView purchaseView(String purchaseId) {
        List<PurchaseOrder> lines = PurchaseOrder.linesOf(purchaseId);
        if (lines.isEmpty()) {
            throw FlashstockException.purchaseNotFound(purchaseId);
        }
        return PurchaseView.of(purchaseId, lines.stream().map(OrderView::of).toList());
    }

    /** The lines an order moves with: itself, or every line of its purchase (in sku order, the lock order). */
    private static List<PurchaseOrder> movingWith(String id, boolean isPurchase) {
        if (isPurchase) {
            List<PurchaseOrder> lines = PurchaseOrder.linesOf(id);
            if (lines.isEmpty()) {
                throw FlashstockException.purchaseNotFound(id);
            }
            return lines;
        }
        PurchaseOrder order = find(id);
        return order.purchaseId == null ? List.of(order) : PurchaseOrder.linesOf(order.purchaseId);
    }

    private static OrderView lineOf(String orderId, List<OrderView> moved) {
        return moved.stream().filter(view -> view.orderId().equals(orderId)).findFirst().orElseThrow();
    }

    /**
     * RESERVED → CANCELLED: the units return to available. Cancelling an order that is already CANCELLED or
     * EXPIRED changes nothing (its units came back already); a CONFIRMED order cannot be cancelled.
     */
    public OrderView cancel(String orderId, String actor) {
        return cancel(orderId, Optional.empty(), actor);
    }

    /** {@link #cancel(String, String)} of an order of {@code owner} (when present); another user's order is 404. */
    public OrderView cancel(String orderId, Optional<String> owner, String actor) {
        if (owner.isPresent()) {
            get(orderId, owner);
        }
        return lineOf(orderId, move(orderId, false, actor, OrderStatus.CANCELLED, StockEvent.Kind.RETURNED,
                Item::returnReserved, status -> status != OrderStatus.CONFIRMED, "cancelled"));
    }

    /**
     * Keeps a RESERVED order at least {@code seconds} from now, never shortened ({@link OrderExtension}); at most
     * {@code reservation-max-ttl}, else 400. An order of someone other than {@code owner} (when present) is 404. A
     * buyer's extension counts as one unit against its per-user rate limit ({@link RateLimiter}, 429 over it): holding
     * units back from a sale costs what buying them does. Each order extended is an {@code extend} movement of
     * {@code actor} in the ledger (no counter moves; consumers of the sale events hear of it).
     */
    public OrderView extend(String orderId, int seconds, Optional<String> owner, String actor) {
        if (seconds > maxTtl.toSeconds()) {
            throw FlashstockException.invalid("seconds: must be at most " + maxTtl.toSeconds()
                    + " (flashstock.reservation-max-ttl)");
        }
        if (owner.isPresent()) {
            rateLimiter.admit(owner.get(), null, 1);
            get(orderId, owner);
        } else {
            persistIfPending(orderId);
        }
        return extension.extend(orderId, seconds, actor);
    }

    /** How an item's counters follow an order's transition (one of {@link Item}'s counter changes). */
    @FunctionalInterface
    private interface CounterChange {
        int apply(String sku, int quantity, Instant now);
    }

    /**
     * Moves the order out of RESERVED to {@code target}, its units by {@code counters}, in one transaction, then
     * mirrors the change; each line moved is a movement of {@code actor} in the ledger. An order no longer RESERVED is
     * answered as it is when {@code settled} accepts its status (a repeat), else 409 {@code order-not-reserved}. A
     * commit whose answer was lost is looked up before answering ({@link LostCommit}): the order's status says whether
     * the move happened.
     */
    private List<OrderView> move(String id, boolean isPurchase, String actor, OrderStatus target, StockEvent.Kind kind,
            CounterChange counters, Predicate<OrderStatus> settled, String verb) {
        persistIfPending(id, isPurchase);
        LostCommit<List<OrderView>> commit = LostCommit.perAttempt();
        List<Changed> changed;
        try {
            changed = retry.inNewTransactions(() -> {
                commit.attempt();
                Instant now = Timestamps.now();
                List<Changed> attempt = new ArrayList<>();
                for (PurchaseOrder line : movingWith(id, isPurchase)) {
                    attempt.add(moved(line, now, actor, target, kind, counters, settled, verb));
                }
                if (attempt.stream().anyMatch(Changed::moved)) { // what follows is the commit of the move
                    commit.committing(Landing.lookedUp("the " + verb + " of " + id, () -> {
                        PurchaseOrder.awaitWriters(id, isPurchase);
                        return movingWith(id, isPurchase).stream().map(OrderView::of).toList();
                    }, lines -> landed(lines, target, settled, verb)));
                }
                return attempt;
            });
        } catch (RuntimeException e) {
            return commit.settle(e);
        }
        return mirrored(changed);
    }

    /**
     * The answer to a move whose commit answer was lost, from the lines as MySQL now holds them: {@code null} (it did
     * not land) while a line is RESERVED, 409 if a line moved elsewhere, else the lines: it committed (the stock-event
     * sweeper mirrors it), or an equal move did.
     */
    private static List<OrderView> landed(List<OrderView> lines, OrderStatus target, Predicate<OrderStatus> settled,
            String verb) {
        for (OrderView line : lines) {
            if (line.status() == OrderStatus.RESERVED) {
                return null;
            }
            if (line.status() != target && !settled.test(line.status())) {
                throw FlashstockException.orderNotReserved(line.orderId(), line.status(), verb);
            }
        }
        return lines;
    }

    /** One order of an attempt of {@link #move}, inside its transaction. */
    private Changed moved(PurchaseOrder order, Instant now, String actor, OrderStatus target, StockEvent.Kind kind,
            CounterChange counters, Predicate<OrderStatus> settled, String verb) {
        if (transition(order, target, now)) {
            counters.apply(order.sku, order.quantity, now);
            Ledger.record(Ledger.Entry.settled(order.sku, target == OrderStatus.CONFIRMED ? Ledger.Kind.CONFIRM
                    : Ledger.Kind.CANCEL, order.quantity, order.id, order.purchaseId, actor));
            long returnedAt = kind == StockEvent.Kind.RETURNED ? mirror.returnedAtVersion(order.sku) : -1;
            return new Changed(OrderView.of(order), mirror.record(kind, order.sku, order.id, order.quantity, now),
                    true, returnedAt);
        }
        if (!settled.test(order.status)) {
            throw FlashstockException.orderNotReserved(order.id, order.status, verb);
        }
        return new Changed(OrderView.of(order), null, false, -1);
    }

    /**
     * The order as answered, the counter change to mirror once its transaction committed (or null), whether this
     * attempt moved the order, and the item's version if it gave units back in MySQL (else -1).
     */
    private record Changed(OrderView view, StockEvent event, boolean moved, long returnedAt) {
    }

    private List<OrderView> mirrored(List<Changed> changed) {
        List<StockEvent> events = changed.stream().map(Changed::event).filter(event -> event != null).toList();
        if (!events.isEmpty()) {
            mirror.apply(events);
        }
        for (Changed line : changed) {
            if (line.returnedAt() >= 0) {
                availability.changed(line.view().sku(), line.returnedAt());
            }
        }
        return changed.stream().map(Changed::view).toList();
    }

    /**
     * Write-behind: an order acknowledged a moment ago may still be on its way to MySQL. Ids are time-ordered, so
     * only a recent id (not an old or made-up one) makes the mirror push pending orders to MySQL first.
     */
    private void persistIfPending(String orderId) {
        persistIfPending(orderId, false);
    }

    /**
     * {@link #persistIfPending(String)} of an order or of a multi-item purchase, whose id is its first line's order
     * id: persisting that item's pending entries persists the whole purchase. An order of that id already stored has
     * nothing left to persist either way: a purchase's first line is stored with its purchase, and a single order's
     * id is no purchase's (its held record in Redis would otherwise have the hot item drained on every look-up).
     */
    private void persistIfPending(String id, boolean isPurchase) {
        if (mirror.mayHavePending() && OrderIds.isRecent(id, PENDING_WINDOW)
                && !(isPurchase && Purchase.count("id", id) > 0) && !PurchaseOrder.exists(id)) {
            mirror.persistPending(id);
        }
    }

    /**
     * Moves the order from RESERVED to {@code target} if it still is RESERVED; returns whether this call made the
     * change. Either way {@code order} shows the current status afterwards.
     */
    private static boolean transition(PurchaseOrder order, OrderStatus target, Instant now) {
        int changed = PurchaseOrder.update("status = ?1, updatedAt = ?2 where id = ?3 and status = ?4", target, now,
                order.id, OrderStatus.RESERVED);
        PurchaseOrder.getEntityManager().refresh(order);
        return changed == 1;
    }

    static PurchaseOrder find(String orderId) {
        PurchaseOrder order = PurchaseOrder.findById(orderId);
        if (order == null) {
            throw FlashstockException.orderNotFound(orderId);
        }
        return order;
    }
}
