package io.flashstock.events;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;

/**
 * The broker of {@link EventPublisherTest}, selected by its profile only ({@code quarkus.arc.selected-alternatives}): records what it is sent (of the skus a test watches only, so the other
 * tests' items cost nothing), and can be told to leave the next events unacknowledged; like an idempotent
 * producer, it acknowledges nothing of a key after one of its records that failed.
 */
@Alternative
@ApplicationScoped
public class RecordingDelivery implements Delivery {

    private final List<SaleEvent> received = new ArrayList<>();
    private final List<String> watched = new ArrayList<>();
    private final AtomicInteger toRefuse = new AtomicInteger();

    @Override
    public boolean on() {
        return true;
    }

    @Override
    public synchronized boolean[] deliver(List<SaleEvent> events) {
        boolean[] acked = new boolean[events.size()];
        java.util.Set<String> failedKeys = new java.util.HashSet<>();
        for (int i = 0; i < events.size(); i++) {
            SaleEvent event = events.get(i);
            boolean refused = toRefuse.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
            // as an idempotent producer keeps a partition's order: after a record that failed, none of its key lands
            acked[i] = !refused && !failedKeys.contains(event.key());
            if (!acked[i]) {
                failedKeys.add(event.key());
            } else if (watched.contains(event.key())) {
                received.add(event);
            }
        }
        return acked;
    }

    synchronized void watch(String sku) {
        watched.add(sku);
    }

    /** The next {@code count} events sent are not acknowledged. */
    void refuseNext(int count) {
        toRefuse.set(count);
    }

    synchronized List<SaleEvent> of(String sku) {
        return received.stream().filter(e -> e.key().equals(sku)).toList();
    }
}
