package io.flashstock.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * Events are on exactly when {@code kafka.bootstrap.servers} is set and {@code flashstock.events.enabled} is true; off,
 * a send refuses at once without touching Kafka. And the producer's guarantees cannot be configured away. A plain
 * unit test: no broker.
 */
class EventSinkSwitchTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Test
    void onOnlyWithBootstrapServersAndEnabled() {
        assertTrue(Sinks.sink(true, "127.0.0.1:9092", TIMEOUT).enabled());
        assertFalse(Sinks.sink(true, null, TIMEOUT).enabled(), "kafka.bootstrap.servers unset");
        assertFalse(Sinks.sink(true, " ", TIMEOUT).enabled(), "kafka.bootstrap.servers blank");
        assertFalse(Sinks.sink(false, "127.0.0.1:9092", TIMEOUT).enabled(), "flashstock.events.enabled=false");
    }

    @Test
    void offSendsNothingAndSaysWhy() {
        EventSink sink = Sinks.sink(false, "127.0.0.1:9092", TIMEOUT);
        long begin = System.nanoTime();
        SentBatch sent = sink.send(List.of(new OutgoingEvent("sku", new byte[] { 1 }, Map.of())));
        assertTrue(System.nanoTime() - begin < Duration.ofSeconds(1).toNanos(), "at once");
        assertEquals(0, sent.ackedCount());
        assertNotNull(sent.firstFailure());
    }

    @Test
    void idempotenceAndAcksAllWhateverKafkaPropertiesSay() {
        Map<String, Object> configured = Map.of(EventSink.BOOTSTRAP_SERVERS, "127.0.0.1:9092", "acks", "1",
                "enable.idempotence", "false", "max.in.flight.requests.per.connection", "50", "group.id", "g",
                "security.protocol", "SASL_SSL");
        Map<String, Object> props = Sinks.withKafkaConfig(true, configured, TIMEOUT).producerConfig();
        assertEquals("SASL_SSL", props.get("security.protocol"), "other kafka.* settings pass through");
        assertEquals("all", props.get("acks"));
        assertEquals(true, props.get("enable.idempotence"));
        assertEquals(5, props.get("max.in.flight.requests.per.connection"));
        assertFalse(props.containsKey("group.id"));
        assertEquals((int) TIMEOUT.toMillis(), props.get("delivery.timeout.ms"));
        assertTrue((int) props.get("request.timeout.ms") + (int) props.get("linger.ms")
                <= (int) props.get("delivery.timeout.ms"), "the producer refuses delivery < linger + request");
    }
}
