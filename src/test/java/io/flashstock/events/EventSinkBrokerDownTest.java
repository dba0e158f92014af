package io.flashstock.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

import io.flashstock.testsupport.Lane;
import io.flashstock.testsupport.OwnKafka;
import io.flashstock.testsupport.Ports;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * With no broker answering, a batch fails within {@code flashstock.events.send-timeout} (plus the time to close what
 * the producer had queued): the publisher's thread never hangs on Kafka. A plain unit test: the sink built by hand,
 * no Quarkus; the killed-broker cases run a broker of their own ({@link OwnKafka}). The full lane also restarts the
 * broker and freezes it.
 */
class EventSinkBrokerDownTest {

    private static final Duration SEND_TIMEOUT = Duration.ofSeconds(3);
    /** The timeout, and slack for a loaded machine. */
    private static final long BOUND_MS = SEND_TIMEOUT.toMillis() + 3_000;

    @Test
    void nothingListeningFailsWithinTheTimeout() {
        EventSink sink = sink("127.0.0.1:" + Ports.free());
        try {
            assertFailsInBoundedTime(sink, 5);
            assertFailsInBoundedTime(sink, 5); // and again: the second batch is no slower
        } finally {
            sink.close();
        }
    }

    @Test
    void aKilledBrokerFailsWithinTheTimeout() {
        withConnectedSink((kafka, sink) -> {
            kafka.stop();
            assertFailsInBoundedTime(sink, 5);
        });
    }

    /** The sink needs no restart of its own when Kafka comes back (a broker restart with its data). */
    @Test
    @Tag(Lane.FULL_TAG)
    void aBrokerBackIsUsedAgain() {
        withConnectedSink((kafka, sink) -> {
            kafka.stop();
            assertFailsInBoundedTime(sink, 5);
            kafka.launch();
            SentBatch again = null;
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while ((again == null || !again.allAcked()) && System.nanoTime() < deadline) {
                again = sink.send(events(3));
            }
            assertTrue(again.allAcked(), "the same sink sends again once the broker is back: "
                    + again.firstFailure());
        });
    }

    /** A hung broker (SIGSTOP: connections open, nothing answered) costs a batch its timeout, not more. */
    @Test
    @Tag(Lane.FULL_TAG)
    void aFrozenBrokerFailsWithinTheTimeout() {
        withConnectedSink((kafka, sink) -> {
            kafka.pause();
            try {
                assertFailsInBoundedTime(sink, 5);
            } finally {
                kafka.resume();
            }
        });
    }

    /** A broker of the test's own and a sink that has sent to it (so the failure comes from a lost broker). */
    private static void withConnectedSink(BiConsumer<OwnKafka, EventSink> body) {
        try (OwnKafka kafka = OwnKafka.start()) {
            EventSink sink = sink(kafka.bootstrapServers());
            try {
                assertTrue(sink.send(events(3)).allAcked(), "broker up: all acknowledged");
                body.accept(kafka, sink);
            } finally {
                sink.close();
            }
        }
    }

    private static void assertFailsInBoundedTime(EventSink sink, int count) {
        long begin = System.nanoTime();
        SentBatch sent = sink.send(events(count));
        long elapsed = (System.nanoTime() - begin) / 1_000_000;
        assertEquals(0, sent.ackedCount(), "nothing acknowledged without a broker");
        assertNotNull(sent.firstFailure(), "the failure is reported");
        assertTrue(elapsed <= BOUND_MS, "failed after " + elapsed + " ms, bound " + BOUND_MS + " ms");
    }

    private static List<OutgoingEvent> events(int count) {
        List<OutgoingEvent> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            events.add(new OutgoingEvent("sku-" + (i % 2), ("e" + i).getBytes(StandardCharsets.UTF_8), Map.of()));
        }
        return events;
    }

    private static EventSink sink(String bootstrapServers) {
        return Sinks.sink(true, bootstrapServers, SEND_TIMEOUT);
    }
}
