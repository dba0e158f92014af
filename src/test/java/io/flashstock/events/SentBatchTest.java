package io.flashstock.events;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** What the publisher may mark published from a partly acknowledged batch. A plain unit test. */
class SentBatchTest {

    @Test
    void aKeysEventsAfterItsFirstFailureAreNotSettledThoughAcknowledged() {
        List<OutgoingEvent> events = List.of(event("a"), event("b"), event("a"), event("a"), event("b"));
        boolean[] acked = { true, false, false, true, true };
        SentBatch batch = new SentBatch(events, acked, new IllegalStateException("x"));

        assertEquals(3, batch.ackedCount());
        assertFalse(batch.allAcked());
        // a: acked, failed, acked -> only the first; b: failed, acked -> none
        assertArrayEquals(new boolean[] { true, false, false, false, false }, batch.ackedInOrderPerKey());
    }

    private static OutgoingEvent event(String key) {
        return new OutgoingEvent(key, new byte[0], Map.of());
    }
}
