package io.flashstock.events;

import static io.flashstock.testsupport.Api.given;
import static io.flashstock.testsupport.Shop.buy;
import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.Http;
import io.flashstock.testsupport.LocalServersResource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * The publisher against MySQL, with a recording broker: every movement of an item becomes its event, in the order
 * the movements happened, once; a sell-out and units coming back are told; an event the broker did not acknowledge
 * is sent again with the same id, and nothing after it is published before it.
 */
@QuarkusTest
@TestProfile(EventPublisherTest.Recording.class)
@WithTestResource(LocalServersResource.class)
class EventPublisherTest {

    /** db-optimistic, with {@link RecordingDelivery} as the broker. */
    public static class Recording extends StrategyProfiles.DbOptimistic {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> overrides = new HashMap<>(super.getConfigOverrides());
            overrides.put("quarkus.arc.selected-alternatives", RecordingDelivery.class.getName());
            overrides.put("flashstock.events.interval", "1h"); // the tests drive the rounds
            return overrides;
        }
    }

    @Inject
    EventPublisher publisher;
    @Inject
    RecordingDelivery broker;
    @Inject
    OutboxStore store;
    @Inject
    SaleEvents saleEvents;
    @Inject
    FlashstockConfig config;

    /**
     * A round lasts at most send-timeout + 15 s; MySQL closes a pool session silent for 30 s (application.properties),
     * so the default 10 s fits and 15 s is refused at startup.
     */
    @Test
    void aRoundMustEndBeforeMySqlClosesItsSilentSession() {
        Duration sessionLimit = QuarkusTransaction.requiringNew().call(store::sessionIdleLimit);
        assertEquals(Duration.ofSeconds(30), sessionLimit);
        EventPublisher.requireRoundWithinSession(config.events().sendTimeout(), sessionLimit);
        EventPublisher.requireRoundWithinSession(Duration.ofSeconds(14), sessionLimit);
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> EventPublisher.requireRoundWithinSession(Duration.ofSeconds(15), sessionLimit));
        assertTrue(refused.getMessage().contains("flashstock.events.send-timeout"), refused.getMessage());
    }

    @Test
    void everyMovementIsPublishedOnceInOrder() {
        String sku = newSku("ev");
        broker.watch(sku);
        Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        createItem(sku, 3, 0);
        String first = buy(sku, "ev-1", 1);
        String second = buy(sku, "ev-2", 1);
        String third = buy(sku, "ev-3", 1);
        given().post("/orders/" + second + "/cancel").then().statusCode(200);
        given().post("/orders/" + first + "/confirm").then().statusCode(200);
        given().contentType("application/json").body("{\"seconds\":3600}").post("/orders/" + third + "/extend")
                .then().statusCode(200);
        drain();

        List<SaleEvent> events = broker.of(sku);
        assertEquals(List.of("item.created", "order.reserved", "order.reserved", "order.reserved", "item.sold-out",
                "order.cancelled", "item.units-back", "order.confirmed", "order.extended"), events.stream()
                .map(SaleEvent::type).toList());
        JsonPath extended = JsonPath.from(events.get(8).json());
        assertEquals("RESERVED", extended.getString("data.status"));
        assertEquals(1, extended.getInt("data.quantity"));
        assertEquals(Instant.parse(given().get("/orders/" + third).then().statusCode(200).extract()
                .path("expiresAt")), Instant.parse(extended.getString("data.expiresAt")), "the stored expiry");
        Instant end = Instant.now().plusSeconds(1);
        for (SaleEvent event : events) {
            Instant time = Instant.parse(JsonPath.from(event.json()).getString("time"));
            assertTrue(!time.isBefore(start) && time.isBefore(end), "written during the test: " + event.json());
        }
        assertEquals(events.size(), new HashSet<>(events.stream().map(SaleEvent::id).toList()).size(), "ids unique");
        JsonPath reserved = JsonPath.from(events.get(3).json());
        assertEquals("1.0", reserved.getString("specversion"));
        assertEquals(third, reserved.getString("subject"));
        assertEquals(third, reserved.getString("data.orderId"));
        assertEquals("ev-3", reserved.getString("data.userId"));
        assertEquals(1, reserved.getInt("data.quantity"));
        JsonPath soldOut = JsonPath.from(events.get(4).json());
        assertEquals(sku, soldOut.getString("subject"));
        assertEquals(0, soldOut.getInt("data.available"));
        assertEquals(3, soldOut.getInt("data.reserved"));
        assertEquals(1, JsonPath.from(events.get(6).json()).getInt("data.available"));

        drain();
        assertEquals(events, broker.of(sku), "nothing is published twice");
    }

    @Test
    void anUnacknowledgedEventIsSentAgainWithItsIdBeforeWhatFollows() {
        String sku = newSku("ev-nack");
        broker.watch(sku);
        createItem(sku, 5, 0);
        drain();
        buy(sku, "nack-1", 1);
        buy(sku, "nack-2", 1);
        broker.refuseNext(1); // the first reserve is lost: neither it nor the second may count as published
        publisher.publishRound();
        assertEquals(List.of("item.created"), broker.of(sku).stream().map(SaleEvent::type).toList());
        drain();
        List<SaleEvent> events = broker.of(sku);
        assertEquals(List.of("item.created", "order.reserved", "order.reserved"),
                events.stream().map(SaleEvent::type).toList());
        assertTrue(Long.parseLong(events.get(1).id()) < Long.parseLong(events.get(2).id()), "in order");
    }

    /**
     * Two publishers (as two pods would run them: separate transactions on separate connections) racing over the same
     * items while they sell: the buckets one holds, the other skips, so every event is published exactly once and
     * each item's events arrive in the order of its movements.
     */
    @Test
    void twoPublishersShareTheItemsAndKeepEachItemsOrder() throws Exception {
        EventPublisher other = new EventPublisher(store, saleEvents, broker, config, new SimpleMeterRegistry());
        List<String> skus = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            String sku = newSku("ev-two-" + i);
            broker.watch(sku);
            createItem(sku, 10, 0);
            skus.add(sku);
        }
        AtomicBoolean selling = new AtomicBoolean(true);
        ExecutorService pods = Executors.newFixedThreadPool(2);
        List<Future<?>> publishing = List.of(publisher, other).stream().map(p -> pods.submit(() -> {
            while (selling.get()) {
                if (!p.publishRound()) {
                    Thread.sleep(5);
                }
            }
            return null;
        })).collect(Collectors.toList());
        Http.concurrently(skus.size() * 10, 16, i -> Http.post("/items/" + skus.get(i % skus.size())
                + "/purchases", "{\"userId\":\"two-" + i + "\",\"quantity\":1}").build());
        selling.set(false);
        for (Future<?> p : publishing) {
            p.get();
        }
        pods.shutdown();
        drain();
        for (String sku : skus) {
            List<SaleEvent> events = broker.of(sku);
            List<String> types = events.stream().map(SaleEvent::type).toList();
            assertEquals(1 + 10 + 1, types.size(), sku + ": created, ten reserved, sold out: " + types);
            assertEquals(10, types.stream().filter("order.reserved"::equals).count());
            assertEquals("item.sold-out", types.get(types.size() - 1));
            long previous = 0;
            for (SaleEvent event : events) {
                long movement = Long.parseLong(event.id().split("\\.")[0]);
                assertTrue(movement >= previous, sku + " in the order of its movements: " + events);
                previous = movement;
            }
        }
    }

    /** Rounds until the publisher finds nothing to do (the scheduled runs may take part: they share the locks). */
    private void drain() {
        for (int i = 0; i < 50; i++) {
            publisher.publishRound();
        }
    }
}
