package io.flashstock.deduction.lua;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.deduction.lua.PendingOrderWriter.Outcome;
import jakarta.inject.Singleton;

/**
 * One item's share of a relay round ({@link OrderRelay}): which of the item's pending-stream entries this pod's relay
 * takes, always through the stream's consumer group, and their persisting. First the entries it holds already (a
 * round that failed before settling), topped up with new ones in write-behind (and in a drain); then entries held
 * unsettled for {@code flashstock.lua.claim-after} by Redis's clock, whoever held them (its pod crashed, or its
 * write-through request died before persisting it; in a drain, every held entry). Batches of
 * {@code flashstock.lua.relay-batch-size}; a full, decided batch reads on.
 *
 * <p>Lines of carts are never persisted alone: {@link Carts#resolve} persists the whole cart, gives the line back, or
 * leaves it while its cart is undecided. Single orders go to MySQL through {@link PendingOrderWriter}, which skips
 * those already there, and {@link RelaySettler} removes an entry only after its order committed.
 *
 * <p>A {@code @Singleton}, created with the relay that injects it, and so its {@link RelaySettler}, whose counters are
 * then served from the strategy's start, not from the first item relayed.
 */
@Singleton
class ItemRelay {

    private final PendingStream stream;
    private final PendingOrderWriter writer;
    private final Carts carts;
    private final RelaySettler settler;
    private final PodIdentity pod;
    private final FlashstockConfig.Lua settings;
    private final boolean writeBehind;

    ItemRelay(PendingStream stream, PendingOrderWriter writer, Carts carts, RelaySettler settler, PodIdentity pod,
            FlashstockConfig config) {
        this.stream = stream;
        this.writer = writer;
        this.carts = carts;
        this.settler = settler;
        this.pod = pod;
        this.settings = config.lua();
        this.writeBehind = settings.persistence() == FlashstockConfig.Persistence.WRITE_BEHIND;
    }

    /**
     * Persists the item's entries this relay takes ({@code everything}: a drain, new entries and every held one at
     * once). Returns whether it decided every entry it took and read until none was left: false when an entry stays
     * undecided (a line of a cart still PENDING, an order MySQL failed for alone), which also ends the reading. A cart
     * that failed (its record's shard failing) is left like a PENDING one, and its failure thrown once the item's idle
     * entries were claimed too, so the round counts the item as failed without holding up its other entries.
     */
    boolean relay(String sku, boolean everything, RelayTally tally) {
        if (stream.isEmpty(sku)) {
            return true;
        }
        Pass pass = new Pass(sku, tally);
        int count = settings.relayBatchSize();
        boolean readNew = writeBehind || everything;
        int decided;
        do {
            List<PendingOrder> batch = new ArrayList<>(stream.readHeld(sku, consumer(), count));
            if (readNew && batch.size() < count) {
                batch.addAll(stream.readNew(sku, consumer(), count - batch.size()));
            }
            decided = pass.persist(batch);
        } while (decided == count && readNew);
        long minIdle = everything ? 0 : settings.claimAfter().toMillis();
        do {
            decided = pass.persist(stream.claimIdle(sku, consumer(), minIdle, count));
        } while (decided == count);
        if (pass.cartFailed != null) {
            throw pass.cartFailed;
        }
        return pass.whole;
    }

    private String consumer() {
        return pod.relay();
    }

    /** One item's pass: what it left undecided, and the first failure of a cart's, thrown at its end. */
    private final class Pass {

        private final String sku;
        private final RelayTally tally;
        private boolean whole = true;
        private RuntimeException cartFailed;

        Pass(String sku, RelayTally tally) {
            this.sku = sku;
            this.tally = tally;
        }

        /** Persists entries this relay took; returns how many were decided. */
        int persist(List<PendingOrder> taken) {
            int decided = 0;
            List<PendingOrder> orders = new ArrayList<>(taken.size());
            for (PendingOrder entry : taken) {
                if (entry.cart() == null) {
                    orders.add(entry);
                } else if (resolveCart(entry)) {
                    decided++;
                } else {
                    tally.unsettled(entry);
                }
            }
            if (!orders.isEmpty()) {
                PendingOrderWriter.Persisted result = writer.persist(sku, orders);
                Map<String, Outcome> outcomes = result.outcomes();
                settler.settle(sku, orders, result);
                for (PendingOrder entry : orders) {
                    if (!outcomes.containsKey(entry.orderId())) {
                        tally.unsettled(entry);
                    }
                }
                decided += outcomes.size();
            }
            whole &= decided == taken.size();
            return decided;
        }

        /** Whether the cart of this line was decided; a cart that fails stays undecided, its failure kept. */
        private boolean resolveCart(PendingOrder line) {
            try {
                return carts.resolve(line);
            } catch (RuntimeException e) {
                cartFailed = cartFailed == null ? e : cartFailed;
                return false;
            }
        }
    }
}
