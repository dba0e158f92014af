package io.flashstock.deduction.lua;

import static io.flashstock.testsupport.Api.given;
import static io.flashstock.testsupport.Shop.assertCounters;
import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.agroal.api.AgroalDataSource;
import io.flashstock.deduction.PurchaseCommand;
import io.flashstock.deduction.lua.HotStock;
import io.flashstock.deduction.lua.PendingStream;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.ProblemCode;
import io.flashstock.order.OrderIds;
import io.flashstock.redis.RedisKeys;
import io.flashstock.support.KeyFilter;
import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.Http;
import io.flashstock.testsupport.Http.Reply;
import io.flashstock.testsupport.OwnRedisResource;
import io.flashstock.testsupport.Pause;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/* CartCrashes' profile (a 1 s cart deadline, which these tests never reach): one Quarkus start for both classes. */
@QuarkusTest
@TestProfile(CartCrashes.WriteThroughProfile.class)
@WithTestResource(OwnRedisResource.class)
class HotStockWriteThroughTest extends HotStockResilience {

    @Inject
    PodIdentity pod;

    @Inject
    PendingStream stream;

    @Inject
    PendingOrderWriter writer;

    @Inject
    RelaySettler settler;

    @Inject
    LuaHotStockAudit audit;

    @Inject
    OrderRelay relay;

    @Inject
    Crashes crashes;

    @Inject
    ActiveItems items;

    @Inject
    AgroalDataSource dataSource;

    @Override
    boolean everyAcknowledgedOrderSurvivesDataLoss() {
        return true;
    }

    /**
     * A cart MySQL refuses for want of one line's units (Redis had more, as after a failover): the 409 names that line,
     * whose units leave Redis's stock as a refused order's do, and the other line's units come back as available.
     * Before, the 409 named the first line, and both lines' units came back: Redis offered units of the short item
     * that MySQL had not, until the reconcile.
     */
    @Test
    void aCartMySqlIsShortOfNamesThatLineAndTakesOnlyItsUnitsOut() {
        String prefix = newSku("cart-short");
        String first = prefix + "-a";
        String second = prefix + "-b";
        createItem(first, 5, 0);
        createItem(second, 5, 0);
        io.flashstock.testsupport.Api.given().get("/items/" + first + "/availability").then().statusCode(200);
        io.flashstock.testsupport.Api.given().get("/items/" + second + "/availability").then().statusCode(200);
        assertEquals(1, Db.update("UPDATE item SET available = 0, stock = 0 WHERE sku = ?", second));

        io.flashstock.testsupport.Api.given().contentType("application/json")
                .body("{\"userId\":\"short\",\"lines\":[{\"sku\":\"" + first + "\",\"quantity\":1},{\"sku\":\""
                        + second + "\",\"quantity\":2}]}")
                .post("/purchases").then().statusCode(409).contentType("application/problem+json")
                .body("type", org.hamcrest.Matchers.endsWith("sold-out"))
                .body("sku", org.hamcrest.Matchers.equalTo(second));
        assertEquals(Map.of("stock", "5", "available", "5", "reserved", "0", "sold", "0"), hot(first),
                "the line MySQL had units for: given back");
        assertEquals(Map.of("stock", "3", "available", "3", "reserved", "0", "sold", "0"), hot(second),
                "the line MySQL was short of: its 2 units out of Redis's stock");
        assertEquals(0, Db.count("SELECT COUNT(*) FROM purchase WHERE user_id = ?", "short"), "nothing stored");
        assertEquals(0, redis.stream(String.class).xlen(RedisKeys.orders(first)));
        assertEquals(0, redis.stream(String.class).xlen(RedisKeys.orders(second)));
    }

    /**
     * MySQL refuses a write-through order for want of units, and before the request takes it back a relay takes its
     * entry over (a drain before a rebuild does, at once) and stores it, MySQL now having the units: the answer is 503
     * {@code outcome-unknown}, never a 409 that denies an order MySQL has. Before, it was 409 whatever the take-back
     * found.
     */
    @Test
    void aRefusedOrderThatARelayStoredMeanwhileIsNotAnsweredSoldOut() throws Exception {
        String sku = newSku("wt-refused");
        createItem(sku, 5, 0);
        io.flashstock.testsupport.Api.given().get("/items/" + sku + "/availability").then().statusCode(200);
        assertEquals(1, Db.update("UPDATE item SET available = 0, stock = 0 WHERE sku = ?", sku));
        crashes.holdAt(Checkpoints.Step.WRITE_THROUGH_REFUSED);
        CompletableFuture<Reply> answer;
        try {
            answer = CompletableFuture.supplyAsync(() -> Http.send(
                    Http.post("/items/" + sku + "/purchases", "{\"userId\":\"refused\",\"quantity\":1}").build()));
            assertTrue(crashes.awaitHeld(10_000), "MySQL refused the order");
            assertEquals(1, Db.update("UPDATE item SET available = 5, stock = 5 WHERE sku = ?", sku));
            relay.drain(sku);
            assertEquals(1, Db.orderCount(sku), "the relay stored the order");
        } finally {
            crashes.release();
        }
        Reply reply = answer.get(20, TimeUnit.SECONDS);
        assertEquals(503, reply.status(), reply.body());
        assertTrue(reply.body().contains("outcome-unknown"), reply.body());
        assertEquals(1, Db.orderCount(sku));
        assertEquals(Map.of("stock", "5", "available", "4", "reserved", "1", "sold", "0"), hot(sku));
        assertEquals(0, redis.stream(String.class).xlen(RedisKeys.orders(sku)));
    }

    /**
     * A purchase of a made-up sku while MySQL cannot answer (every pooled connection taken) is 503 and makes no item
     * active: it took nothing. Before, every failure but item-not-found made its sku active, and each pod's relay,
     * reconcile and retire rounds looked at every such made-up sku for {@code active-for}.
     */
    @Test
    void aMadeUpSkuBoughtWhileMySqlCannotAnswerMakesNoItemActive() throws Exception {
        String madeUp = newSku("made-up-busy");
        Instant now = Instant.now();
        PurchaseCommand command = new PurchaseCommand(madeUp, "busy", 1, null, null);
        List<Connection> taken = new ArrayList<>();
        try {
            while (taken.size() < dataSource.getConfiguration().connectionPoolConfiguration().maxSize()) {
                taken.add(dataSource.getConnection());
            }
            FlashstockException refused = assertThrows(FlashstockException.class,
                    () -> hotStock.purchase(command, OrderIds.next(madeUp), now, now.plusSeconds(60)));
            assertEquals(ProblemCode.UNAVAILABLE, refused.code(), refused.getMessage());
        } finally {
            for (Connection connection : taken) {
                connection.close();
            }
        }
        assertFalse(items.all().contains(madeUp), "a made-up sku among the items with work");
    }

    @Test
    void aPurchaseGivenUpOnHasNoEffectWhetherItRanOrNot() {
        String sku = newSku("void");
        createItem(sku, 10, 0);
        Instant now = Instant.now();
        PurchaseCommand command = new PurchaseCommand(sku, "late", 2, null, null);

        // It ran before the caller gave up: taken back.
        String ran = OrderIds.next(sku);
        assertEquals(PurchaseReply.OK, hotStock.purchase(command, ran, now, now.plusSeconds(60)).reply());
        assertEquals("8", hot(sku).get("available"));
        assertEquals(PendingStream.Undo.UNDONE, stream.abandon(sku, ran, null, null, pod.id()));
        assertEquals("10", hot(sku).get("available"));
        assertEquals("0", hot(sku).get("reserved"));

        // It was still queued when the caller gave up: it never runs.
        String queued = OrderIds.next(sku);
        assertEquals(PendingStream.Undo.NEVER_RAN, stream.abandon(sku, queued, null, null, pod.id()));
        assertEquals(PurchaseReply.VOID, hotStock.purchase(command, queued, now, now.plusSeconds(60)).reply());
        assertEquals("10", hot(sku).get("available"));
        assertEquals(0, redis.stream(String.class).xlen(RedisKeys.orders(sku)));
    }

    /**
     * A purchase given up on (its call timed out) whose order a relay stored, and whose item was then rebuilt from
     * MySQL: its held record came from MySQL, without a stream entry. Giving up finds the order there, not a purchase
     * that never ran: the caller's answer is outcome-unknown, not "nothing was changed", which a retry without a key
     * would have turned into a second order.
     */
    @Test
    void aPurchaseGivenUpOnAfterItsItemWasRebuiltWithItsOrderHasHadItsEffect() {
        String sku = newSku("void-rebuilt");
        createItem(sku, 10, 0);
        Instant now = Instant.now();
        String ran = OrderIds.next(sku);
        PurchaseCommand command = new PurchaseCommand(sku, "rebuilt", 2, null, null);
        assertEquals(PurchaseReply.OK, hotStock.purchase(command, ran, now, now.plusSeconds(60)).reply());
        relay.drain(sku);
        assertEquals(1, Db.orderCount(sku), "the relay stored the order");
        redis.key().del(RedisKeys.stock(sku));
        hotStock.prepare(sku);
        assertEquals("rebuilt 2", redis.hash(String.class).hget(RedisKeys.held(sku), ran), "a record from MySQL");

        assertEquals(PendingStream.Undo.GONE, stream.abandon(sku, ran, null, null, pod.id()));
        assertEquals(Map.of("stock", "10", "available", "8", "reserved", "2", "sold", "0"), hot(sku), "it stands");
    }

    /**
     * An entry one consumer of the stream holds is never taken back by another: the request that took it at purchase
     * time (write-through) or a relay that took it over persists it. Before the consumer group, an undo could delete
     * an entry a relay had just committed, returning units that MySQL had sold.
     */
    @Test
    void anEntryHeldByOneConsumerIsNotTakenBackByAnother() {
        String sku = newSku("held");
        createItem(sku, 10, 0);
        Instant now = Instant.now();
        PurchaseCommand command = new PurchaseCommand(sku, "held", 1, null, null);
        String orderId = OrderIds.next(sku);
        assertEquals(PurchaseReply.OK, hotStock.purchase(command, orderId, now, now.plusSeconds(60)).reply());

        // A relay takes the idle entry over (as after claim-after), then the request tries to give up on it.
        assertEquals(1, stream.claimIdle(sku, "other-pod/relay", 0, 10).size());
        assertEquals(PendingStream.Undo.HELD_ELSEWHERE, stream.abandon(sku, orderId, null, null, pod.id()));
        assertEquals("9", hot(sku).get("available"), "the units stay sold");
        assertEquals(1, redis.stream(String.class).xlen(RedisKeys.orders(sku)), "the entry stays for the relay");
        // The relay that holds it may take it back (MySQL refused it, say).
        PendingOrder entry = stream.readHeld(sku, "other-pod/relay", 10).get(0);
        assertEquals(PendingStream.Undo.UNDONE, stream.undo(entry, true, "other-pod/relay"));
        assertEquals("10", hot(sku).get("available"));
        assertEquals(0, redis.stream(String.class).xlen(RedisKeys.orders(sku)));
    }

    /**
     * An entry as a pod of the earlier version wrote it (ten fields) reads as the one-field entries this version
     * writes: a rolling upgrade leaves both in a stream, and the relays, the lookups and the settlement report read
     * each. The item here is made by hand and never announced, so no relay takes its entries first.
     */
    @Test
    void anOlderPodsEntryReadsAsThisVersionsEntry() {
        String sku = newSku("forms");
        String orders = RedisKeys.orders(sku);
        redis.execute("XGROUP", "CREATE", orders, PendingStream.GROUP, "0", "MKSTREAM");
        String older = OrderIds.next(sku);
        String newer = OrderIds.next(sku);
        redis.execute("XADD", orders, "*", "id", older, "user", "u-old", "qty", "2", "key", "k-old", "fp", "f-old",
                "created", "1795809785", "expires", "1795831385", "pod", "pod-a", "ep", "e1", "cart", "");
        redis.execute("XADD", orders, "*", PendingStream.PACKED,
                newer + " u-new 3 1795809786 1795831386 f-new k-new pod-b  " + older); // no epoch: an empty value
        redis.execute("HSET", RedisKeys.stock(sku), "stock", "10", "available", "5", "reserved", "5", "sold", "0");

        List<PendingOrder> read = stream.readNew(sku, "forms-reader", 10);
        assertEquals(2, read.size());
        Instant created = Instant.ofEpochSecond(1795809785);
        Instant expires = Instant.ofEpochSecond(1795831385);
        assertEquals(new PendingOrder(read.get(0).entryId(), older, sku, "u-old", 2, "k-old", "f-old", created, expires,
                "pod-a", "e1", null), read.get(0));
        assertEquals(new PendingOrder(read.get(1).entryId(), newer, sku, "u-new", 3, "k-new", "f-new",
                created.plusSeconds(1), expires.plusSeconds(1), "pod-b", "", older), read.get(1));
        assertEquals(List.of(KeyFilter.entry("u-old", "k-old"), KeyFilter.entry("u-new", "k-new")),
                stream.pendingKeys(sku));
        var counts = audit.read(sku).orElseThrow();
        assertEquals(2, counts.pendingOrders());
        assertEquals(5, counts.pendingUnits());
    }

    /**
     * Settled entries leave the stream, and nothing else does, whether they are its oldest (one XTRIM drops them) or
     * not (XDEL): an older entry still pending (another consumer's), a newer one never delivered, an entry settled
     * without ever being delivered. The item here is made by hand and never announced, so no relay reads it.
     */
    @Test
    void settledEntriesLeaveTheStreamAndNoOthers() {
        String sku = newSku("settle");
        String orders = RedisKeys.orders(sku);
        redis.execute("XGROUP", "CREATE", orders, "relay", "0", "MKSTREAM");
        List<String> ids = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            ids.add(redis.execute("XADD", orders, "*", PendingStream.PACKED, "e" + i).toString());
        }
        redis.execute("XREADGROUP", "GROUP", "relay", "a", "COUNT", "3", "STREAMS", orders, ">"); // 1, 2, 3 to a
        redis.execute("XREADGROUP", "GROUP", "relay", "b", "COUNT", "1", "STREAMS", orders, ">"); // 4 to b; 5 unread

        stream.settle(sku, ids.subList(1, 3), List.of(), 0); // 1 is older and still pending
        assertEquals(List.of(ids.get(0), ids.get(3), ids.get(4)), entryIds(orders));
        stream.settle(sku, ids.subList(0, 1), List.of(), 0); // now the oldest
        assertEquals(List.of(ids.get(3), ids.get(4)), entryIds(orders));
        stream.settle(sku, ids.subList(3, 4), List.of(), 0); // the last one delivered; 5 was never read
        assertEquals(List.of(ids.get(4)), entryIds(orders));
        stream.settle(sku, ids.subList(4, 5), List.of(), 0); // settled without being read
        assertEquals(List.of(), entryIds(orders));
        assertEquals(0, redis.execute("XPENDING", orders, "relay").get(0).toLong(), "nothing left pending");
    }

    private List<String> entryIds(String orders) {
        List<String> ids = new ArrayList<>();
        redis.execute("XRANGE", orders, "-", "+").forEach(entry -> ids.add(entry.get(0).toString()));
        return ids;
    }

    /**
     * Orders acknowledged before Redis lost its data whose MySQL commit lands after the snapshot the item is re-warmed
     * from: the re-warmed hot stock must count them once, whether the commit settles after the warm-up (the settle
     * script takes them in) or while the item is still cold (the warm-up takes them in). Before, Redis showed their
     * units as available and sold them a second time; MySQL then refused acknowledged orders.
     */
    @Test
    void commitsInFlightAcrossDataLossAreCountedOnceAfterTheRewarm() throws InterruptedException {
        String warmFirst = newSku("inflight-warm");
        String coldFirst = newSku("inflight-cold");
        createItem(warmFirst, 10, 0);
        createItem(coldFirst, 10, 0);
        List<PendingOrder> early = acknowledge(warmFirst, 3);
        List<PendingOrder> late = acknowledge(coldFirst, 2);

        OwnRedisResource.server().flushAll(); // Redis loses everything while the commits are on their way
        warmer.takeUpGeneration();
        warmer.prepare(warmFirst); // warmFirst: snapshot before its commit
        commit(warmFirst, early);
        redis.key().del(RedisKeys.stock(coldFirst)); // coldFirst: its commit settles while it is cold (unless the
        commit(coldFirst, late);                     // watch, re-warming after the flush, is quicker: either way)
        if (!redis.key().exists(RedisKeys.stock(coldFirst))) {
            assertEquals(2, redis.hash(String.class).hlen(RedisKeys.late(coldFirst)), "set aside for the warm-up");
        }
        warmer.prepare(coldFirst);

        assertEquals(Map.of("stock", "10", "available", "7", "reserved", "3", "sold", "0"), hot(warmFirst));
        assertEquals(Map.of("stock", "10", "available", "8", "reserved", "2", "sold", "0"), hot(coldFirst));
        for (PendingOrder order : early) {
            assertTrue(redis.hash(String.class).hexists(RedisKeys.held(warmFirst), order.orderId()));
        }
        // Settling the same commit again changes nothing: the orders are held now.
        settler.settle(warmFirst, early, new PendingOrderWriter.Persisted(
                early.stream().collect(Collectors.toMap(PendingOrder::orderId, o -> PendingOrderWriter.Outcome.INSERTED)),
                Long.MAX_VALUE));
        assertEquals("7", hot(warmFirst).get("available"));
        awaitRedisAgrees(warmFirst);
        awaitRedisAgrees(coldFirst);
    }

    /**
     * Orders acknowledged before Redis lost its data and committed after the snapshot the item was re-warmed from, one
     * cancelled and one confirmed before their commit settled: each move is mirrored first and finds no held record;
     * the settle then takes the orders in as they stand. Before, it took both in as reserved: the cancelled units
     * stayed reserved in Redis and the confirmed ones were never sold there, until the item went quiet and was
     * reconciled.
     */
    @Test
    void ordersMovedBeforeTheirLateSettleAreTakenInAsTheyStand() {
        String sku = newSku("moved-early");
        createItem(sku, 10, 0);
        List<PendingOrder> orders = acknowledge(sku, 3);

        OwnRedisResource.server().flushAll();
        warmer.takeUpGeneration();
        warmer.prepare(sku); // the snapshot predates the commit
        PendingOrderWriter.Persisted persisted = writer.persist(sku, orders); // committed; its settle is late
        given().post("/orders/" + orders.get(0).orderId() + "/cancel").then().statusCode(200);
        given().post("/orders/" + orders.get(1).orderId() + "/confirm").then().statusCode(200);
        assertEquals(Map.of("stock", "10", "available", "10", "reserved", "0", "sold", "0"), hot(sku),
                "no held record: nothing moved");

        settler.settle(sku, orders, persisted);
        assertEquals(Map.of("stock", "10", "available", "8", "reserved", "1", "sold", "1"), hot(sku));
        assertCounters(sku, 10, 8, 1, 1);
        assertEquals(java.util.Set.of(orders.get(2).orderId()),
                redis.hash(String.class).hgetall(RedisKeys.held(sku)).keySet(), "only the reserved one is held");
    }

    /**
     * Both orders of one Idempotency-Key in one batch: Redis forgot the key between the purchase and its retry, and
     * neither order is in MySQL yet (the relay took both in one read, or a retried batch holds both). The first goes
     * in, the second is {@code DUPLICATE_KEY} (the unchecked insert fails on the key and the batch is retried
     * checked), its units go back in Redis, and the key points at the first order again. Nothing else changes. The
     * repeat's entry is held by this pod's request (write-through reads as the pod itself), so the settle here, as a
     * relay, cannot take it back: a relay does once it claims the idle entry ({@code claim-after}, 2 s here, then its
     * next round), which under a loaded machine took 3.1 s once (CI, 2026-12-01): the wait allows for that.
     */
    @Test
    void twoOrdersOfOneKeyInOneBatchStoreTheFirstOnly() throws Exception {
        String sku = newSku("key-twice");
        createItem(sku, 10, 0);
        String key = "twice-" + sku;
        PendingOrder first = acknowledge(sku, "u", key);
        redis.key().del(RedisKeys.idempotency(sku, "u", key)); // Redis forgot it: the retry is a new purchase there
        PendingOrder again = acknowledge(sku, "u", key);
        PendingOrder other = acknowledge(sku, "v", null);
        assertEquals("7", hot(sku).get("available"));

        List<PendingOrder> batch = List.of(first, again, other);
        PendingOrderWriter.Persisted persisted = writer.persist(sku, batch);
        assertEquals(Map.of(first.orderId(), PendingOrderWriter.Outcome.INSERTED,
                again.orderId(), PendingOrderWriter.Outcome.DUPLICATE_KEY,
                other.orderId(), PendingOrderWriter.Outcome.INSERTED), persisted.outcomes());
        assertEquals(2, settler.settle(sku, batch, persisted));

        assertEquals(java.util.Set.of(first.orderId(), other.orderId()), java.util.Set.copyOf(Db.orderIds(sku)));
        assertTrue(Pause.until(() -> "8".equals(hot(sku).get("available")), 15_000),
                "a relay gave the repeat's unit back: " + hot(sku));
        assertCounters(sku, 10, 8, 2, 0);
        assertEquals("8", hot(sku).get("available"), "the repeat's unit is back in Redis");
        assertTrue(redis.value(String.class).get(RedisKeys.idempotency(sku, "u", key))
                .startsWith(first.orderId() + " "), "the key answers the first order");
        assertFalse(redis.hash(String.class).hexists(RedisKeys.held(sku), again.orderId()), "the repeat is not held");
        awaitRedisAgrees(sku);
    }

    /** One purchase acknowledged by Redis (held by this pod's request), not yet in MySQL; {@code key} may be null. */
    private PendingOrder acknowledge(String sku, String user, String key) {
        Instant now = Instant.now();
        String fingerprint = key == null ? null : "fp-" + user;
        PurchaseCommand command = new PurchaseCommand(sku, user, 1, key, fingerprint);
        String orderId = OrderIds.next(sku);
        HotStock.Decision decision = hotStock.purchase(command, orderId, now, now.plusSeconds(600));
        assertEquals(PurchaseReply.OK, decision.reply());
        return new PendingOrder(decision.entryId(), orderId, sku, user, 1, key, fingerprint, now,
                decision.expiresAt(), pod.id(), decision.epoch(), null);
    }

    /** Purchases acknowledged by Redis (write-through: held by this pod's request), not yet in MySQL. */
    private List<PendingOrder> acknowledge(String sku, int count) {
        List<PendingOrder> orders = new ArrayList<>();
        Instant now = Instant.now();
        for (int i = 0; i < count; i++) {
            PurchaseCommand command = new PurchaseCommand(sku, "early-" + i, 1, null, null);
            String orderId = OrderIds.next(sku);
            HotStock.Decision decision = hotStock.purchase(command, orderId, now, now.plusSeconds(600));
            assertEquals(PurchaseReply.OK, decision.reply());
            orders.add(new PendingOrder(decision.entryId(), orderId, sku, command.userId(), 1, null, null, now,
                    decision.expiresAt(), pod.id(), decision.epoch(), null));
        }
        return orders;
    }

    /** What the request (or a relay) does with its orders: commit them in MySQL, then settle them in Redis. */
    private void commit(String sku, List<PendingOrder> orders) {
        if (!orders.isEmpty()) {
            settler.settle(sku, orders, writer.persist(sku, orders));
        }
    }
}
