package io.flashstock.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import io.flashstock.testsupport.LocalKafkaResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * The sink against a real broker: the local single-node broker that {@code LocalKafka} starts where nothing answers at
 * {@code kafka.bootstrap.servers}, as dev mode does. What the sink reports acknowledged is what a plain consumer reads:
 * every record once, with its key and headers, each key's records in the order sent.
 */
@QuarkusTest
@WithTestResource(LocalKafkaResource.class)
class EventSinkTest {

    private static final int KEYS = 3;
    private static final int PER_KEY = 20;

    @Inject
    EventSink sink;

    @Test
    void everyAcknowledgedEventIsReadBackOnceInOrderPerKey() {
        assertTrue(sink.enabled(), "kafka.bootstrap.servers is set, so events are on");
        String run = Long.toString(System.nanoTime(), 36);
        List<OutgoingEvent> events = new ArrayList<>();
        for (int i = 0; i < PER_KEY; i++) {
            for (int k = 0; k < KEYS; k++) {
                String key = "sku-" + run + "-" + k;
                events.add(new OutgoingEvent(key, (key + "#" + i).getBytes(StandardCharsets.UTF_8),
                        Map.of("content-type", "application/cloudevents+json")));
            }
        }
        try (TopicReader reader = TopicReader.open(LocalKafkaResource.bootstrapServers(), sink.topic())) {
            SentBatch sent = sink.send(events);
            assertNull(sent.firstFailure(), "no failure with the broker up");
            assertTrue(sent.allAcked(), sent.ackedCount() + " of " + events.size() + " acknowledged");

            List<ConsumerRecord<String, byte[]>> records = reader.read(events.size(), Duration.ofSeconds(30));
            assertEquals(events.size(), records.size(), "each event once, none more");
            Map<String, List<String>> byKey = new LinkedHashMap<>();
            for (ConsumerRecord<String, byte[]> record : records) {
                String value = new String(record.value(), StandardCharsets.UTF_8);
                assertTrue(value.startsWith(record.key() + "#"), "record " + value + " under key " + record.key());
                assertEquals("application/cloudevents+json",
                        new String(record.headers().lastHeader("content-type").value(), StandardCharsets.UTF_8));
                byKey.computeIfAbsent(record.key(), x -> new ArrayList<>()).add(value);
            }
            assertEquals(KEYS, byKey.size());
            byKey.forEach((key, values) -> {
                List<String> expected = new ArrayList<>();
                for (int i = 0; i < PER_KEY; i++) {
                    expected.add(key + "#" + i);
                }
                assertEquals(expected, values, "the records of " + key + " in the order sent");
            });
        }
    }
}
