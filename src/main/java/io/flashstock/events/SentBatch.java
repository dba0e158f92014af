package io.flashstock.events;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What {@link EventSink#send} got back for a batch: per record, in the batch's order, whether the broker acknowledged
 * it ({@code acks=all}), and the first failure. Only an acknowledged record may be marked published in the outbox.
 */
public final class SentBatch {

    private final List<OutgoingEvent> events;
    private final boolean[] acked;
    private final Exception firstFailure;

    SentBatch(List<OutgoingEvent> events, boolean[] acked, Exception firstFailure) {
        this.events = events;
        this.acked = acked;
        this.firstFailure = firstFailure;
    }

    public int size() {
        return acked.length;
    }

    /** Whether the broker acknowledged the record at {@code index} of the batch. */
    public boolean acked(int index) {
        return acked[index];
    }

    public int ackedCount() {
        int n = 0;
        for (boolean a : acked) {
            n += a ? 1 : 0;
        }
        return n;
    }

    public boolean allAcked() {
        return ackedCount() == acked.length;
    }

    /**
     * The records that may be marked published without reordering a key's events: acknowledged, and no earlier record
     * of the same key failed (sending a failed record again after its successor was published would put it behind
     * it). The others stay in the outbox for the next batch.
     */
    public boolean[] ackedInOrderPerKey() {
        boolean[] settled = Arrays.copyOf(acked, acked.length);
        Set<String> failedKeys = new HashSet<>();
        for (int i = 0; i < settled.length; i++) {
            String key = events.get(i).key();
            if (!settled[i] || failedKeys.contains(key)) {
                settled[i] = false;
                failedKeys.add(key);
            }
        }
        return settled;
    }

    /** The first failure (a timeout with Kafka down, the events being off, ...), or null when all were acked. */
    public Exception firstFailure() {
        return firstFailure;
    }
}
