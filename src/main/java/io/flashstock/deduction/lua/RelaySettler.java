package io.flashstock.deduction.lua;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.flashstock.deduction.lua.PendingOrderWriter.Outcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;
import org.jboss.logging.Logger;

/**
 * The end of a relay's batch ({@link ItemRelay}): once MySQL decided its orders, the entries of those it has leave the
 * item's stream, and those it refused are taken back in Redis (their units, or their Idempotency-Key's owner). Until
 * then a crash leaves the entries, and the next round finds them in MySQL.
 *
 * <p>Metrics: {@code flashstock.relay.persisted} and {@code flashstock.relay.rejected}. A {@code @Singleton}, as is
 * {@link ItemRelay}, which injects it: it is created (and its counters registered) with the relay.
 */
@Singleton
public class RelaySettler {

    /** Logs as the relay, whose batches it finishes. */
    private static final Logger LOG = Logger.getLogger(OrderRelay.class);

    private final PendingStream stream;
    private final PendingOrderWriter writer;
    private final IdempotencyKeys keys;
    private final PodIdentity pod;
    private final Checkpoints checkpoints;
    private final Counter persisted;
    private final Counter rejected;

    RelaySettler(PendingStream stream, PendingOrderWriter writer, IdempotencyKeys keys, PodIdentity pod,
            Checkpoints checkpoints, MeterRegistry registry) {
        this.stream = stream;
        this.writer = writer;
        this.keys = keys;
        this.pod = pod;
        this.checkpoints = checkpoints;
        this.persisted = Counter.builder("flashstock.relay.persisted")
                .description("Pending orders the relay inserted into MySQL").register(registry);
        this.rejected = Counter.builder("flashstock.relay.rejected")
                .description("Acknowledged orders MySQL refused for lack of units (Redis had stale stock)")
                .register(registry);
    }

    /**
     * Removes the entries of persisted orders and takes back the ones MySQL did not take. Returns the number
     * inserted.
     */
    int settle(String sku, List<PendingOrder> orders, PendingOrderWriter.Persisted result) {
        Map<String, Outcome> outcomes = result.outcomes();
        checkpoints.passed(Checkpoints.Step.RELAY_COMMITTED);
        List<String> done = new ArrayList<>();
        int inserted = 0;
        for (PendingOrder order : orders) {
            Outcome outcome = outcomes.get(order.orderId());
            if (outcome == null) {
                continue; // not decided (MySQL failed for it alone): the entry stays for the next round
            }
            if ((outcome == Outcome.DUPLICATE_KEY || outcome == Outcome.SOLD_OUT) && writer.stored(order.orderId())) {
                done.add(order.entryId()); // another writer stored it meanwhile: never take back a stored order
                continue;
            }
            switch (outcome) {
                case INSERTED -> {
                    inserted++;
                    done.add(order.entryId());
                }
                case PRESENT -> done.add(order.entryId());
                case DUPLICATE_KEY -> {
                    LOG.warnf("Order %s of %s repeats the Idempotency-Key of an order in MySQL (Redis had lost the "
                            + "key); its units go back", order.orderId(), sku);
                    stream.undo(order, true, pod.relay());
                    keys.rememberOwner(order);
                }
                case SOLD_OUT -> {
                    rejected.increment();
                    LOG.errorf("MySQL has no units for acknowledged order %s of %s (Redis had stale stock); the "
                            + "order is dropped", order.orderId(), sku);
                    stream.undo(order, false, pod.relay());
                }
            }
        }
        stream.settle(sku, done, result.inserted(orders), result.version());
        persisted.increment(inserted);
        return inserted;
    }
}
