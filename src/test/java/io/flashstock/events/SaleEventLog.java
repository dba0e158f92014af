package io.flashstock.events;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

import io.restassured.path.json.JsonPath;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The sale events a test consumer saw on the topic since it was opened, as a consumer of the contract would keep
 * them: deduplicated by {@code id} (the first delivery counts), in the order they arrived per item.
 */
final class SaleEventLog implements AutoCloseable {

    /** One event as received: its record key and the parsed CloudEvent. */
    record Received(String key, String id, String type, String subject, JsonPath event) {
    }

    private final TopicReader reader;
    private final List<Received> received = new ArrayList<>();
    private final Set<String> ids = new HashSet<>();
    private int duplicates;

    private SaleEventLog(TopicReader reader) {
        this.reader = reader;
    }

    static SaleEventLog open(String bootstrapServers) {
        return new SaleEventLog(TopicReader.open(bootstrapServers, "flashstock.events"));
    }

    /** Reads until the events of {@code sku} satisfy {@code done} or {@code within} passed; answers them. */
    List<Received> await(String sku, Predicate<List<Received>> done, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        while (!done.test(of(sku)) && System.nanoTime() < deadline) {
            for (ConsumerRecord<String, byte[]> record : reader.read(1, Duration.ofMillis(300))) {
                JsonPath event = JsonPath.from(new String(record.value(), StandardCharsets.UTF_8));
                String id = event.getString("id");
                if (ids.add(id)) {
                    received.add(new Received(record.key(), id, event.getString("type"), event.getString("subject"),
                            event));
                } else {
                    duplicates++;
                }
            }
        }
        return of(sku);
    }

    List<Received> of(String sku) {
        return received.stream().filter(e -> e.key().equals(sku)).toList();
    }

    static long count(List<Received> events, String type) {
        return events.stream().filter(e -> e.type().equals(type)).count();
    }

    /** Deliveries dropped as duplicates (a redelivered id): allowed, counted for the test's message. */
    int duplicates() {
        return duplicates;
    }

    @Override
    public void close() {
        reader.close();
    }
}
