package io.flashstock.events;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.JsonNode;
import io.flashstock.testsupport.Json;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The sale events a test consumer saw on the topic since it was opened, as a consumer of the contract would keep
 * them: deduplicated by {@code id} (the first delivery counts), in the order they arrived per item. A redelivery must
 * be the same event: one whose key, type or subject differ from the first delivery of its id is kept aside
 * ({@link #conflictingDuplicates()}).
 */
final class SaleEventLog implements AutoCloseable {

    /** One event as received: its record key and the parsed CloudEvent. */
    record Received(String key, String id, String type, String subject, JsonNode event) {

        /** What a redelivery of the event must repeat (its data may differ: an order's expiry as published then). */
        String identity() {
            return key + " " + type + " " + subject;
        }
    }

    private final TopicReader reader;
    private final List<Received> received = new ArrayList<>();
    private final Map<String, Received> byId = new HashMap<>();
    private final List<String> conflicting = new ArrayList<>();
    private int duplicates;

    private SaleEventLog(TopicReader reader) {
        this.reader = reader;
    }

    static SaleEventLog open(String bootstrapServers) {
        return new SaleEventLog(TopicReader.open(bootstrapServers, "flashstock.events"));
    }

    /** Reads until the events of {@code sku} satisfy {@code done} or {@code within} passed; answers them. */
    List<Received> await(String sku, Predicate<List<Received>> done, Duration within) {
        await(() -> done.test(of(sku)), within);
        return of(sku);
    }

    /** Reads until {@code done} holds (asked between reads) or {@code within} passed; answers whether it holds. */
    boolean await(BooleanSupplier done, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            poll();
        }
        return true;
    }

    /** Reads what arrived within about a second. */
    void poll() {
        for (ConsumerRecord<String, byte[]> record : reader.read(1, Duration.ofMillis(300))) {
            JsonNode event = Json.read(new String(record.value(), StandardCharsets.UTF_8));
            Received one = new Received(record.key(), Json.text(event, "id"), Json.text(event, "type"),
                    Json.text(event, "subject"), event);
            Received first = byId.putIfAbsent(one.id(), one);
            if (first == null) {
                received.add(one);
            } else {
                duplicates++;
                if (!first.identity().equals(one.identity())) {
                    conflicting.add(one.id() + ": " + first.identity() + " then " + one.identity());
                }
            }
        }
    }

    List<Received> of(String sku) {
        return received.stream().filter(e -> e.key().equals(sku)).toList();
    }

    /** The ids of {@code sku}'s events, in the order they first arrived. */
    List<String> ids(String sku) {
        return of(sku).stream().map(Received::id).toList();
    }

    /** Reads until every order of {@code sold} (ids per sku) has its {@code order.reserved}, {@code within} at most. */
    boolean awaitReserved(Map<String, Set<String>> sold, Duration within) {
        return await(() -> sold.entrySet().stream().allMatch(item -> subjects(item.getKey(), "order.reserved")
                .containsAll(item.getValue())), within);
    }

    /** The subjects of {@code sku}'s events of {@code type}, one per event (an order's id for an order's). */
    List<String> subjects(String sku, String type) {
        return of(sku).stream().filter(e -> e.type().equals(type)).map(Received::subject).toList();
    }

    static long count(List<Received> events, String type) {
        return events.stream().filter(e -> e.type().equals(type)).count();
    }

    /** Deliveries dropped as duplicates (a redelivered id): allowed, counted for the test's message. */
    int duplicates() {
        return duplicates;
    }

    /** Redeliveries of an id that were another event (key, type or subject): none is allowed. */
    List<String> conflictingDuplicates() {
        return conflicting;
    }

    @Override
    public void close() {
        reader.close();
    }
}
