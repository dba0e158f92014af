package io.flashstock.order;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.db.ConflictRetry;
import io.flashstock.db.LostCommit;
import io.flashstock.db.LostCommit.Landing;
import io.flashstock.error.FlashstockException;
import io.flashstock.item.Ledger;
import io.flashstock.support.Timestamps;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Extends reservations ({@link OrderService#extend}, which checks the request and the owner first): the expiry moves
 * to now + seconds, rounded up to a whole {@link #STEP_SECONDS} seconds, if that is later, capped at the order's
 * creation + {@code reservation-max-ttl}; it is never shortened, so repeating the call (after a lost answer, say)
 * changes nothing more. The rounding bounds what repeats can write: each move is by a whole step, so an order's
 * expiry moves at most {@code reservation-max-ttl} ÷ 30 s times (240 at 2 h) however often it is extended, and a
 * caller who repeats an extension every second adds a ledger row and an {@code order.extended} event a step, not a
 * second. One conditional update on a RESERVED row: the expiry job, which claims due rows with
 * {@code FOR UPDATE SKIP LOCKED}, either expired the order first (409 {@code order-not-reserved}) or finds it no
 * longer due. A commit whose answer was lost is looked up before answering ({@link LostCommit}), as for confirm and
 * cancel.
 */
@ApplicationScoped
public class OrderExtension {

    /** The expiry an extension sets is a whole number of these (since the epoch), rounded up. */
    static final long STEP_SECONDS = 30;

    private final ConflictRetry retry;
    private final Duration maxTtl;

    OrderExtension(ConflictRetry retry, FlashstockConfig config) {
        this.retry = retry;
        this.maxTtl = config.reservationCap();
    }

    /** Keeps the order, or all lines of its purchase, RESERVED at least {@code seconds} from now (capped). */
    public OrderView extend(String orderId, int seconds, String actor) {
        return LostCommit.run(retry, commit -> {
            PurchaseOrder order = OrderService.find(orderId);
            Instant now = Timestamps.now();
            Instant latest = order.createdAt.plus(maxTtl);
            Instant asked = roundedUp(now.plusSeconds(seconds));
            Instant until = asked.isAfter(latest) ? latest : asked;
            if (order.purchaseId != null) {
                return extendLines(order, until, now, commit, actor);
            }
            if (order.status == OrderStatus.RESERVED && until.isAfter(order.expiresAt)) {
                commit.committing(extended(orderId, until));
                // Only ever later: a concurrent extend may have moved it further since the read above.
                if (PurchaseOrder.update("expiresAt = ?1, updatedAt = ?2 where id = ?3 and status = ?4"
                        + " and expiresAt < ?1", until, now, orderId, OrderStatus.RESERVED) == 1) {
                    Ledger.record(Ledger.Entry.extend(order.sku, order.id, null, actor));
                }
                PurchaseOrder.getEntityManager().refresh(order);
            }
            if (order.status != OrderStatus.RESERVED) {
                throw FlashstockException.orderNotReserved(orderId, order.status, "extended");
            }
            return OrderView.of(order);
        });
    }

    private static Instant roundedUp(Instant at) {
        long steps = (at.getEpochSecond() + (at.getNano() > 0 ? 1 : 0) + STEP_SECONDS - 1) / STEP_SECONDS;
        return Instant.ofEpochSecond(steps * STEP_SECONDS);
    }

    /**
     * The answer to an extension whose commit answer was lost: the order as it is if its expiry is now at least
     * {@code until} (this extension, or a longer one, committed), 409 if it is no longer RESERVED, and 503
     * {@code unavailable} (nothing changed) if it still expires earlier.
     */
    private static Landing<OrderView> extended(String orderId, Instant until) {
        return Landing.lookedUp("the extension of " + orderId, () -> {
            PurchaseOrder.awaitWriters(orderId, false); // the lines of a purchase commit with this one
            return OrderView.of(OrderService.find(orderId));
        }, order -> {
            if (order.status() != OrderStatus.RESERVED) {
                throw FlashstockException.orderNotReserved(orderId, order.status(), "extended");
            }
            return order.expiresAt().isBefore(until.truncatedTo(ChronoUnit.MICROS)) ? null : order;
        });
    }

    /**
     * Extension of a line of a multi-item purchase: every line keeps the same expiry. The lines are locked first
     * ({@code FOR UPDATE}, which the expiry job's {@code SKIP LOCKED} claim steps around), so either the job expired
     * one of them before (409, nothing extended) or it finds none of them due.
     */
    private static OrderView extendLines(PurchaseOrder order, Instant until, Instant now,
            LostCommit<OrderView> commit, String actor) {
        @SuppressWarnings("unchecked")
        List<String> statuses = PurchaseOrder.getEntityManager()
                .createNativeQuery("SELECT status FROM purchase_order WHERE purchase_id = ?1 ORDER BY sku FOR UPDATE")
                .setParameter(1, order.purchaseId).getResultList();
        String notReserved = statuses.stream().filter(status -> !OrderStatus.RESERVED.name().equals(status))
                .findFirst().orElse(null);
        if (notReserved != null) {
            throw FlashstockException.orderNotReserved(order.id, notReserved, "extended");
        }
        if (until.isAfter(order.expiresAt)) {
            commit.committing(extended(order.id, until));
            // Only ever later: order was read before the lines were locked, and a concurrent extend may have moved
            // them further meanwhile.
            @SuppressWarnings("unchecked")
            List<Object[]> lines = PurchaseOrder.getEntityManager().createNativeQuery("SELECT id, sku FROM"
                    + " purchase_order WHERE purchase_id = ?1 AND status = 'RESERVED' AND expires_at < ?2 ORDER BY sku")
                    .setParameter(1, order.purchaseId).setParameter(2, Timestamps.utc(until)).getResultList();
            PurchaseOrder.update("expiresAt = ?1, updatedAt = ?2 where purchaseId = ?3 and status = ?4"
                    + " and expiresAt < ?1", until, now, order.purchaseId, OrderStatus.RESERVED);
            Ledger.record(lines.stream().map(line -> Ledger.Entry.extend((String) line[1], (String) line[0],
                    order.purchaseId, actor)).toList());
            Purchase.update("expiresAt = ?1 where id = ?2 and expiresAt < ?1", until, order.purchaseId);
            PurchaseOrder.getEntityManager().refresh(order);
        }
        return OrderView.of(order);
    }
}
