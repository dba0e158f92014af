package io.flashstock.events;

import static io.flashstock.events.SaleEventLog.count;
import static io.flashstock.testsupport.Shop.byStatus;
import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpRequest;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.Http;
import io.flashstock.testsupport.Http.Reply;
import io.flashstock.testsupport.Lane;
import io.flashstock.testsupport.OwnKafka;
import io.flashstock.testsupport.OwnRedis;
import io.flashstock.testsupport.Pause;
import io.flashstock.testsupport.ServiceProcess;
import io.flashstock.testsupport.Shop;
import io.restassured.RestAssured;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Sale events from two packaged instances ({@link ServiceProcess}) serving one sale, both publishing (the outbox split
 * between them by buckets, {@code FOR UPDATE SKIP LOCKED}), on a database of the class's own
 * ({@value #DATABASE}, emptied first: the pods publish every unpublished movement in it, and the first case counts
 * what they publish), a Redis and a Kafka broker of its own; redis-lua write-behind, where a reservation is told
 * when a relay persists it, whichever pod's relay that is. Read by a test consumer that deduplicates by {@code id}
 * and compared with the movement ledger ({@link LedgerEvents}). The second case kills a pod: it runs last. Runs with
 * the other {@code *IT} classes, after packaging; full lane.
 */
@Tag(Lane.FULL_TAG)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EventsTwoPodsIT {

    static final String DATABASE = "flashstock_test_evpods";
    private static final String STRATEGY = "redis-lua:write-behind";
    private static final Duration WITHIN = Duration.ofSeconds(45);
    private static final List<AutoCloseable> STARTED = new ArrayList<>();

    private static String jdbcUrl;
    private static OwnKafka kafka;
    private static ServiceProcess survivor;
    /** Killed by the second case. */
    private static ServiceProcess victim;

    @BeforeAll
    static void startTwoPods() {
        jdbcUrl = Db.freshDatabase(DATABASE);
        kafka = own(OwnKafka.start());
        OwnRedis redis = own(OwnRedis.start());
        Map<String, String> settings = ServiceProcess.settings(STRATEGY, jdbcUrl, redis.hosts());
        settings.put("kafka.bootstrap.servers", kafka.bootstrapServers());
        survivor = own(ServiceProcess.start("events-survivor", settings));
        victim = own(ServiceProcess.start("events-victim", settings));
        RestAssured.baseURI = "http://127.0.0.1";
        RestAssured.port = survivor.port(); // items are created through the pod that lives
    }

    @AfterAll
    static void stopEverything() throws Exception {
        for (int i = STARTED.size() - 1; i >= 0; i--) {
            STARTED.get(i).close();
        }
        STARTED.clear();
    }

    /**
     * The events contract's core on two pods, both publishing: 12 items (each in a bucket of its own) of 15 units, 270
     * buyers alternating between the pods. Every 201 has exactly one {@code order.reserved} and no refusal has one;
     * each item's events are {@code item.created} first and its one {@code item.sold-out} last; the topic carries
     * exactly the ledger's 12 x 17 events in ledger order; and the two pods' acknowledged-events counters together
     * count every record the consumer read, no more (which pod published what depends on their timers: printed).
     */
    @Test
    @Order(1)
    void twoPodsTellEveryOrderOnceAndShareThePublishing() {
        List<String> skus = PublishingRounds.inDistinctBuckets(newSku("ev-two"), 12);
        int stock = 15;
        int units = stock * skus.size();
        int buyers = units * 3 / 2;
        assertTrue(publishing(survivor) && publishing(victim), "events are on in both pods");
        double[] before = {acked(survivor), acked(victim)};
        try (SaleEventLog log = SaleEventLog.open(kafka.bootstrapServers())) {
            skus.forEach(sku -> createItem(sku, stock, 0));
            List<Reply> replies = Http.concurrently(buyers, 32, i -> purchase(i % 2 == 0 ? survivor : victim,
                    skus.get(i % skus.size()), "t-" + i));
            assertEquals(Map.of(201, (long) units, 409, (long) (buyers - units)), byStatus(replies), "answers");
            Map<String, Set<String>> sold = Shop.soldBySku(replies, skus);

            assertTrue(log.awaitReserved(sold, WITHIN), "every 201's order.reserved within " + WITHIN);
            LedgerEvents.Delivered delivered = LedgerEvents.awaitDelivered(log, jdbcUrl, skus, WITHIN);
            assertEquals(skus.size() * (stock + 2), delivered.events(), "created, a reservation per unit, sold out");
            for (String sku : skus) {
                List<SaleEventLog.Received> events = log.of(sku);
                assertEquals(sold.get(sku), new HashSet<>(log.subjects(sku, "order.reserved")), "one order.reserved"
                        + " per 201 of " + sku + ", none for a refusal");
                assertEquals(stock, count(events, "order.reserved"), "no second order.reserved of an order");
                assertEquals(1, count(events, "item.sold-out"), "one sell-out of " + sku);
                assertEquals("item.created", events.get(0).type(), "the first event of " + sku);
                assertEquals("item.sold-out", events.get(events.size() - 1).type(), "told after the last reservation");
            }

            long records = delivered.events() + delivered.duplicates();
            double[] published = new double[2];
            Pause.until(() -> {
                published[0] = acked(survivor) - before[0];
                published[1] = acked(victim) - before[1];
                return published[0] + published[1] >= records;
            }, 10_000);
            System.out.printf("[events] two pods: %d events, %d duplicates; acknowledged by the pods: %.0f + %.0f%n",
                    delivered.events(), delivered.duplicates(), published[0], published[1]);
            assertEquals(records, (long) (published[0] + published[1]), "every record read was acknowledged once");
        }
    }

    /**
     * A pod killed while publishing: 16 items (each in a bucket of its own) of 40 units, 960 buyers through both pods.
     * Once a tenth is sold the broker is frozen, so that a round of each pod waits for its acknowledgements holding
     * its buckets (MySQL shows both), and one pod is killed ({@code SIGKILL}): its connection, and with it its round
     * and bucket locks, is gone at once. The broker resumes, and the last third of the buyers, held back until the
     * kill, buy through the other pod, which also persists what the dead pod's relay held. Then every committed
     * movement's event arrives, exactly the ledger's in ledger order (the other pod sends the killed round's events
     * again from the cursors, with the same ids: whatever the broker had taken from the dead pod arrives twice and is
     * dropped as a duplicate), and every 201, from either pod, has its one {@code order.reserved}.
     */
    @Test
    @Order(2)
    void aPodKilledWhilePublishingLosesNoEventAndReordersNone() throws Exception {
        List<String> skus = PublishingRounds.inDistinctBuckets(newSku("ev-kill"), 16);
        int stock = 40;
        int buyers = stock * skus.size() * 3 / 2;
        AtomicBoolean killed = new AtomicBoolean();
        try (SaleEventLog log = SaleEventLog.open(kafka.bootstrapServers()); Connection db = Db.connect(jdbcUrl)) {
            skus.forEach(sku -> createItem(sku, stock, 0));
            // The second third buys once the broker is frozen (work for rounds that then wait), the last third once
            // the pod is killed, through the pod that lives.
            SaleInThirds sale = new SaleInThirds(skus, buyers, (i, sku) -> purchase(i % 2 == 0 || killed.get()
                    ? survivor : victim, sku, "k-" + i));
            sale.awaitStored(db, stock * skus.size() / 10);

            List<String> rounds;
            try {
                rounds = sale.openSecondWithBrokerFrozen(kafka, db, 2);
                victim.kill();
                killed.set(true);
                assertTrue(Pause.until(() -> PublishingRounds.open(db, rounds).size() < rounds.size(), 3_000),
                        "the killed pod's round and its bucket locks are gone: " + rounds);
            } finally {
                kafka.resume();
                sale.openLast();
            }
            Map<String, Set<String>> sold = sale.sold();
            assertTrue(log.awaitReserved(sold, WITHIN), "every 201's order.reserved within " + WITHIN);
            for (String sku : skus) {
                List<String> reserved = log.subjects(sku, "order.reserved");
                assertEquals(reserved.size(), new HashSet<>(reserved).size(), "one order.reserved per order of " + sku);
            }
            LedgerEvents.awaitQuiet(db, skus);
            LedgerEvents.Delivered delivered = LedgerEvents.awaitDelivered(log, jdbcUrl, skus, WITHIN);
            System.out.printf("[events] a pod killed while publishing (%d rounds held buckets): %s; %d events"
                    + " delivered, %d duplicates dropped%n", rounds.size(), byStatus(sale.replies()), delivered.events(),
                    delivered.duplicates());
        }
    }

    private static HttpRequest purchase(ServiceProcess pod, String sku, String userId) {
        return Http.post(pod.base().resolve("/items/" + sku + "/purchases"), "{\"userId\":\"" + userId
                + "\",\"quantity\":1}").build();
    }

    /** Whether the pod's readiness data says it publishes events ({@code sale-events}: {@code publishing}). */
    private static boolean publishing(ServiceProcess pod) {
        Reply ready = Http.send(HttpRequest.newBuilder(pod.base().resolve("/q/health/ready")).GET().build());
        assertEquals(200, ready.status(), ready.body());
        return JsonPath.from(ready.body()).getBoolean("checks.find { it.name == 'sale-events' }.data.publishing");
    }

    /** The pod's {@code flashstock_events_acked_total}: events the broker acknowledged to it. */
    private static double acked(ServiceProcess pod) {
        Reply metrics = Http.send(HttpRequest.newBuilder(pod.management().resolve("/q/metrics")).GET().build());
        assertEquals(200, metrics.status(), metrics.body());
        return metrics.body().lines().filter(line -> line.startsWith("flashstock_events_acked_total"))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
    }

    private static <T extends AutoCloseable> T own(T resource) {
        STARTED.add(resource);
        return resource;
    }
}
