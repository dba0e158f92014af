package io.flashstock.deduction.lock;

import java.time.Instant;

import io.flashstock.item.Item;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

/**
 * The write a lock holder makes: reserve units only if its fencing token is newer than the last one MySQL
 * accepted for the item, and record the token. A holder that paused past its lease carries an older token than
 * the holder after it, so its write matches no row. {@code available >= quantity} and the CHECK constraint keep
 * the write safe even without the lock.
 *
 * <p>Created at startup in every pod, whatever its strategy, so that {@code flashstock_lock_fencing_rejected_total}
 * is in every pod's {@code /q/metrics}, as the README's metrics table says of every flashstock metric.
 */
@Startup
@ApplicationScoped
public class FencedReservation {

    /** Outcome of a fenced write. */
    public enum Result {
        RESERVED,
        /** A newer fencing token was accepted already: this holder's lock was lost. */
        FENCED_OUT,
        /** Not enough available units. */
        SOLD_OUT
    }

    private final Counter rejected;

    FencedReservation(MeterRegistry registry) {
        this.rejected = Counter.builder("flashstock.lock.fencing.rejected")
                .description("Writes refused because their fencing token was stale").register(registry);
    }

    /** Runs inside the caller's transaction. */
    @Transactional(Transactional.TxType.MANDATORY)
    public Result reserve(String sku, int quantity, long fence, Instant now) {
        if (Item.reserveFenced(sku, quantity, fence, now) == 1) {
            return Result.RESERVED;
        }
        if (accepted(sku) >= fence) {
            rejected.increment();
            return Result.FENCED_OUT;
        }
        return Result.SOLD_OUT;
    }

    /**
     * Takes the item for a batch of purchases under {@code fence}, inside the caller's transaction: records the token
     * and takes the item's row lock, unless a newer token was accepted already. Returns false when fenced out; an
     * unknown sku is not fenced out (the batch then answers item-not-found).
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public boolean claim(String sku, long fence) {
        if (Item.claimFence(sku, fence) == 1 || accepted(sku) < fence) {
            return true;
        }
        rejected.increment();
        return false;
    }

    /** The last fencing token MySQL accepted for the item (0 if none). */
    @Transactional(Transactional.TxType.SUPPORTS)
    public long accepted(String sku) {
        return Item.getEntityManager().createQuery("select i.fence from Item i where i.sku = :sku", Long.class)
                .setParameter("sku", sku).getResultStream().findFirst().orElse(0L);
    }
}
