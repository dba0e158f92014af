package io.flashstock.deduction.lua;

import static io.flashstock.testsupport.Api.given;
import static io.flashstock.testsupport.Shop.assertCounters;
import static io.flashstock.testsupport.Shop.buy;
import static io.flashstock.testsupport.Shop.byStatus;
import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.flashstock.deduction.ActiveStrategy;
import io.flashstock.deduction.DeductionStrategy;
import io.flashstock.deduction.PurchaseCommand;
import io.flashstock.deduction.lua.OrderRelay;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.ProblemCode;
import io.flashstock.order.OrderIds;
import io.flashstock.redis.RedisKeys;
import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.Http;
import io.flashstock.testsupport.Http.Reply;
import io.flashstock.testsupport.OwnRedisResource;
import io.quarkus.arc.ClientProxy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.flashstock.testsupport.Json;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/* CartCrashes' profile (a 1 s cart deadline, which these tests never reach): one Quarkus start for both classes. */
@QuarkusTest
@TestProfile(CartCrashes.WriteBehindProfile.class)
@WithTestResource(OwnRedisResource.class)
class HotStockWriteBehindTest extends HotStockResilience {

    @Inject
    OrderRelay relay;

    @Inject
    RecentOrders recent;

    @Inject
    Crashes crashes;

    @Inject
    PendingStream stream;

    @Inject
    PodIdentity pod;

    @Inject
    HotStockWarmer warmer;

    @Inject
    ActiveStrategy active;

    @Inject
    Vertx vertx;

    @Override
    boolean everyAcknowledgedOrderSurvivesDataLoss() {
        return false; // orders acknowledged but still pending in Redis go with its data: the write-behind trade-off
    }

    /**
     * A request whose script call timed out gives up on its order, but meanwhile a repeat of it (same Idempotency-Key)
     * was answered 201 with that order: the order stands, and the first request may not say "nothing was changed".
     * Before, the give-up took the order back while the repeat's 201 named it, and a third try made a second order.
     */
    @Test
    void anOrderARepeatWasAnsweredWithIsNotTakenBackByTheFirstRequest() throws InterruptedException {
        String sku = newSku("answered");
        createItem(sku, 10, 0);
        PurchaseCommand command = new PurchaseCommand(sku, "twice", 1, "answered-key", "fingerprint");
        // The first request's script runs, but its caller stopped waiting for the reply.
        String first = newOrder(command);
        // The client's retry is answered with that order (201 in write-behind, from Redis if MySQL lacks it yet).
        assertReplays(command, first);

        // The first request now gives up on its call: the order must stand, so its answer is outcome-unknown.
        assertEquals(PendingStream.Undo.ANSWERED, stream.abandon(sku, first, "twice", "answered-key", pod.id()));
        awaitOrders(sku, 1);
        assertEquals(1, Db.count("SELECT COUNT(*) FROM purchase_order WHERE id = ?", first), "the answered order");
        assertCounters(sku, 10, 9, 1, 0);
        assertReplays(command, first); // the key still answers the first order
        assertEquals(1, Db.orderCount(sku));
        awaitRedisAgrees(sku);
    }

    /**
     * The upgrade to keys of their user: a key a pod of the earlier version wrote under its old name
     * ({@code fs:{sku}:idem:<key>}, here renamed to it) still answers its user's retry, and only that user's: another
     * user's purchase with the same key is another order.
     */
    @Test
    void aKeyUnderItsOldNameStillAnswersItsUsersRetry() throws InterruptedException {
        String sku = newSku("old-name");
        createItem(sku, 10, 0);
        PurchaseCommand command = new PurchaseCommand(sku, "before", 1, "old-key", "fingerprint-before");
        String first = newOrder(command);
        redis.key().rename(RedisKeys.idempotency(sku, "before", "old-key"),
                RedisKeys.legacyIdempotency(sku, "old-key"));

        assertReplays(command, first);
        newOrder(new PurchaseCommand(sku, "after", 1, "old-key", "fingerprint-after"));
        awaitOrders(sku, 2);
        assertCounters(sku, 10, 8, 2, 0);
    }

    /** Runs the purchase script for {@code command} with a new order id, as a request would. */
    private HotStock.Decision scriptFor(PurchaseCommand command) {
        Instant now = Instant.now();
        return hotStock.purchase(command, OrderIds.next(command.sku()), now, now.plusSeconds(60));
    }

    /** The script takes {@code command} for a new purchase: its order id. */
    private String newOrder(PurchaseCommand command) {
        HotStock.Decision decision = scriptFor(command);
        assertEquals(PurchaseReply.OK, decision.reply());
        return decision.orderId();
    }

    /** The script answers {@code command} with the order {@code first}. */
    private void assertReplays(PurchaseCommand command, String first) {
        HotStock.Decision decision = scriptFor(command);
        assertEquals(PurchaseReply.REPLAY, decision.reply());
        assertEquals(first, decision.orderId());
    }

    @Test
    void relayKilledMidBatchLandsEveryAcknowledgedOrderOnce() throws Exception {
        String sku = itemWithACrashingRelay("relay", 100);
        try {
            List<Reply> replies = Http.concurrently(60, 16, i -> Http.post("/items/" + sku + "/purchases",
                    "{\"userId\":\"r-" + i + "\",\"quantity\":1}").build());
            assertEquals(60, replies.stream().filter(r -> r.status() == 201).count());
            awaitOrders(sku, 60);
            Thread.sleep(500); // several more rounds find the same entries and must not insert them again
            assertEquals(60, redis.stream(String.class).xlen(RedisKeys.orders(sku)), "entries still pending");
            assertCounters(sku, 100, 40, 60, 0);
        } finally {
            crashes.none();
        }
        long deadline = System.currentTimeMillis() + 5_000;
        while (redis.stream(String.class).xlen(RedisKeys.orders(sku)) > 0 && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(0, redis.stream(String.class).xlen(RedisKeys.orders(sku)), "stream drained");
        assertCounters(sku, 100, 40, 60, 0);
        assertEquals(60, Db.count("SELECT COUNT(DISTINCT id) FROM purchase_order WHERE sku = ?", sku));
        awaitRedisAgrees(sku);
    }

    /**
     * A pod that stops persists what it acknowledged: its relay's last round is a full one. Before, a relay stopped
     * between two full rounds left the entries it held (here: its rounds died after their commit) for another
     * redis-lua pod, and the MySQL-strategy pods of a strategy switch waited for one.
     */
    @Test
    void aStoppingRelayLeavesNothingPending() throws Exception {
        String sku = itemWithACrashingRelay("stopping", 10);
        try {
            for (int i = 0; i < 3; i++) {
                buy(sku, "s-" + i, 1);
            }
            awaitOrders(sku, 3);
        } finally {
            crashes.none();
        }
        relay.onStop(null);
        try {
            assertEquals(0, redis.stream(String.class).xlen(RedisKeys.orders(sku)), "pending once the relay stopped");
        } finally {
            relay.start();
        }
        assertCounters(sku, 10, 7, 3, 0);
        assertEquals(3, Db.count("SELECT COUNT(DISTINCT id) FROM purchase_order WHERE sku = ?", sku));
    }

    /**
     * A new item, warmed (these tests are about the relay, not the first purchases of a cold item); from now on every
     * relay round commits its batch in MySQL, then dies before removing it.
     */
    private String itemWithACrashingRelay(String prefix, int stock) {
        String sku = newSku(prefix);
        createItem(sku, stock, 0);
        given().get("/items/" + sku + "/availability").then().statusCode(200);
        crashes.crashAt(Checkpoints.Step.RELAY_COMMITTED);
        return sku;
    }

    /**
     * Readers of an item's orders that queued behind a relay round share one drain of the item, and each sees every
     * order acknowledged before it asked. Before, each listing ({@code GET /orders?sku=}, any buyer may send it) drained
     * the item itself under the relay's lock, one after the other, while every item's relay rounds waited behind them.
     */
    @Test
    void readersQueuedTogetherShareOneDrain() throws Exception {
        String sku = newSku("readers");
        createItem(sku, 50, 0);
        Set<String> ids = new java.util.HashSet<>();
        crashes.holdAt(Checkpoints.Step.RELAY_COMMITTED);
        List<Reply> replies;
        double drains;
        try {
            ids.add(buy(sku, "r-0", 1));
            assertTrue(crashes.awaitHeld(5_000), "a relay round holds the relay's lock");
            for (int i = 1; i < 6; i++) {
                ids.add(buy(sku, "r-" + i, 1));
            }
            double before = meters.counter("flashstock.relay.reader-drains").count();
            CompletableFuture<List<Reply>> readers = CompletableFuture.supplyAsync(() -> Http.concurrently(20, 20,
                    i -> Http.get("/orders?sku=" + sku + "&limit=50", io.flashstock.testsupport.Tokens.staff())));
            long queued = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1_500); // each reader waits at most 2 s
            while (relay.waitingForRounds() < 20 && System.nanoTime() < queued) {
                Thread.sleep(10);
            }
            crashes.release();
            replies = readers.get(20, TimeUnit.SECONDS);
            drains = meters.counter("flashstock.relay.reader-drains").count() - before;
        } finally {
            crashes.release();
        }
        for (Reply reply : replies) {
            assertEquals(200, reply.status(), reply.body());
            for (String id : ids) {
                assertTrue(reply.body().contains(id), id + " acknowledged before the listing: " + reply.body());
            }
        }
        assertTrue(drains >= 1 && drains <= 2, "20 readers queued together drained the item " + drains + " times");
        // (1 when every reader queued before the release; a reader that came after the first drain began drains again)
    }

    /**
     * The memory of shared drains holds the items drained in the last seconds. A drain older than twice a reader's
     * longest wait started before every waiting reader asked, so it answers them as no memory would, and it is
     * forgotten when a later drain is remembered. Before, the memory kept every item ever read while it had pending orders,
     * until the pod restarted.
     */
    @Test
    void aSharedDrainIsForgottenOnceNoReaderCanStillWaitForIt() {
        String first = newSku("forget-a");
        String second = newSku("forget-b");
        String third = newSku("forget-c");
        long start = System.nanoTime();
        recent.remember(first, start);
        recent.remember(second, start + RecentOrders.FORGET_DRAINS_AFTER_NANOS);
        assertTrue(recent.rememberedDrains().containsAll(Set.of(first, second)),
                "within a reader's wait of each other");
        recent.remember(third, start + RecentOrders.FORGET_DRAINS_AFTER_NANOS + 1);
        Set<String> remembered = recent.rememberedDrains();
        assertFalse(remembered.contains(first), "a drain no reader can still wait for: " + remembered);
        assertTrue(remembered.containsAll(Set.of(second, third)), remembered.toString());
    }

    /**
     * Listings without a sku share their count of the orders not yet in MySQL: each gets the first count that starts
     * after it asked. Here the listings arrive while Redis is frozen, so the count under way cannot end: one more count
     * answers them all. Before, each listing counted for itself, a command per item with work, and any buyer's
     * listings multiplied Redis's work by the items on sale.
     */
    @Test
    void listingsWaitingTogetherShareOneCountOfPendingOrders() throws Exception {
        String sku = newSku("counted");
        createItem(sku, 5, 0);
        buy(sku, "counted", 1); // an item with work
        long before = recent.countsRun();
        CompletableFuture<List<Reply>> listings;
        OwnRedisResource.server().pause();
        try {
            listings = CompletableFuture.supplyAsync(() -> Http.concurrently(30, 30,
                    i -> Http.get("/orders?limit=1", io.flashstock.testsupport.Tokens.staff())));
            Thread.sleep(1_000);
        } finally {
            OwnRedisResource.server().resume();
        }
        List<Reply> replies = listings.get(20, TimeUnit.SECONDS);
        long counts = recent.countsRun() - before;
        assertEquals(Map.of(200, 30L), byStatus(replies), replies.get(0).body());
        assertTrue(counts >= 1 && counts <= 5, "30 listings waiting together counted " + counts + " times");
    }

    @Test
    void anOrderIsReadableRightAfterItsAcknowledgement() {
        String sku = newSku("read");
        createItem(sku, 50, 0);
        List<Reply> replies = Http.concurrently(20, 20, i -> Http.post("/items/" + sku + "/purchases",
                "{\"userId\":\"g-" + i + "\",\"quantity\":1}").build());
        assertEquals(Map.of(201, 20L), byStatus(replies));
        Set<String> ids = replies.stream().map(r -> Json.text(r.body(), "orderId"))
                .collect(Collectors.toSet());
        for (String id : ids) {
            given().get("/orders/" + id).then().statusCode(200);
        }
        assertEquals(20, ids.size());
    }

    /**
     * Looking up an id not in MySQL drains only the items the id can belong to (its item tag), never every item:
     * before, any recent-looking id, made up or not, made the relay pass over every item it knew.
     */
    @Test
    void aLookupDrainsOnlyTheItemsItsIdNames() {
        String sku = newSku("tagged");
        createItem(sku, 5, 0);
        String real = given().contentType("application/json").body("{\"userId\":\"t\",\"quantity\":1}")
                .post("/items/" + sku + "/purchases").then().statusCode(201).extract().path("orderId");
        Set<String> drained = recent.drainFor(real, Duration.ofSeconds(2));
        // The relay may have stored the order before the look-up (then nothing of the item is left to drain): either
        // way the order is in MySQL when the look-up returns, and only items of the id's tag were drained.
        assertEquals(1, Db.orderCount(sku), "the item's order stored by the time the look-up returns: " + drained);
        assertTrue(drained.stream().allMatch(s -> OrderIds.itemTag(s) == OrderIds.itemTag(sku)), drained.toString());
        assertEquals(Set.of(), recent.drainFor(UUID.randomUUID().toString(), Duration.ofSeconds(2)), "not our id");
        given().get("/orders/" + OrderIds.next(sku)).then().statusCode(404);
    }

    /**
     * An order id made up with the tag of an item that has pending orders (as from one of its real ids) is looked up
     * in the item's held orders and drains nothing; a real one drains its item.
     */
    @Test
    void aMadeUpOrderIdOfAHotItemCostsALookUpNotADrain() {
        String sku = newSku("madeup");
        createItem(sku, 5, 0);
        String real = given().contentType("application/json").body("{\"userId\":\"t\",\"quantity\":1}")
                .post("/items/" + sku + "/purchases").then().statusCode(201).extract().path("orderId");
        assertEquals(Set.of(), recent.drainFor(OrderIds.next(sku), Duration.ofSeconds(2)), "made up");
        assertEquals(Set.of(sku), recent.drainFor(real, Duration.ofSeconds(2)), "held: a real order");
    }

    /**
     * The same for a multi-item purchase: an id made up with the tag of its first item, while that item's stream holds
     * entries, drains nothing and is 404; the real id (its first line's order id) drains that item and is 200. Before,
     * any purchase id of the tag drained every item of the tag with entries in its stream: a buyer could make the hot
     * item's relay work on every look-up.
     */
    @Test
    void aMadeUpPurchaseIdOfAHotItemCostsALookUpNotADrain() {
        String second = newSku("cart-b");
        createItem(second, 5, 0);
        String first = itemWithACrashingRelay("cart-a", 5);
        String purchaseId;
        try {
            buy(first, "single", 1); // its entry stays in the item's stream: the relay dies before removing it
            purchaseId = given().contentType("application/json").body("{\"userId\":\"c\",\"lines\":[{\"sku\":\""
                    + first + "\",\"quantity\":1},{\"sku\":\"" + second + "\",\"quantity\":1}]}")
                    .post("/purchases").then().statusCode(201).extract().path("purchaseId");
            assertTrue(stream.length(first) > 0, "entries of " + first + " in its stream");
            String madeUp = OrderIds.next(first);
            assertEquals(Set.of(), recent.drainFor(madeUp, Duration.ofSeconds(2)), "made up");
            given().get("/purchases/" + madeUp).then().statusCode(404);
        } finally {
            crashes.none();
        }
        assertEquals(Set.of(first), recent.drainFor(purchaseId, Duration.ofSeconds(2)), "held: the first line");
        given().get("/purchases/" + purchaseId).then().statusCode(200).body("orders[0].orderId", equalTo(purchaseId));
    }

    /**
     * An order's id asked for as a purchase's ({@code GET /purchases/{orderId}}) drains nothing once the order is in
     * MySQL: there is nothing of it left to persist. Before, a purchase look-up asked only whether a purchase of that
     * id was stored, and the id of any stored order still held in Redis (every RESERVED one) made the hot item's
     * relay drain its stream, on every look-up, for anyone who sent it.
     */
    @Test
    void anOrderIdAskedForAsAPurchaseCostsALookUpNotADrain() {
        String sku = itemWithACrashingRelay("order-as-purchase", 5);
        try {
            String orderId = buy(sku, "single", 1); // stored by the relay, whose entry stays in the stream
            assertTrue(io.flashstock.testsupport.Pause.until(() -> Db.orderCount(sku) == 1, 10_000),
                    "the relay stored the order");
            assertTrue(stream.length(sku) > 0, "its entry still in the item's stream");
            double drains = meters.counter("flashstock.relay.reader-drains").count();
            for (int i = 0; i < 3; i++) {
                given().get("/purchases/" + orderId).then().statusCode(404);
            }
            assertEquals(drains, meters.counter("flashstock.relay.reader-drains").count(), "no drain");
        } finally {
            crashes.none();
        }
    }

    /**
     * A purchase of a made-up sku is answered 404 while another thread holds the pod-wide monitor under which a new
     * generation is taken up: an unchanged generation is read without it. Before, every cold or made-up sku's first
     * request held that monitor for its Redis call, so this one waited for the test to let go.
     */
    @Test
    void aMadeUpSkuIsAnsweredWhileTheGenerationMonitorIsHeld() throws Exception {
        String sku = newSku("ghost");
        Object monitor = ClientProxy.unwrap(warmer);
        synchronized (monitor) {
            CompletableFuture<Integer> status = CompletableFuture.supplyAsync(() -> given()
                    .contentType("application/json").body("{\"userId\":\"ghost\",\"quantity\":1}")
                    .post("/items/" + sku + "/purchases").statusCode());
            assertEquals(404, status.get(5, TimeUnit.SECONDS));
        }
    }

    /**
     * A write-behind purchase and a refusal by the script are answered on the event loop that asked, with no worker
     * thread and no blocking call (a blocking Redis or MySQL call there would fail): before, every purchase that
     * reached Redis waited for it on a worker thread.
     */
    @Test
    void aPurchaseDecidedByTheScriptIsAnsweredOnTheEventLoop() throws Exception {
        String sku = newSku("loop");
        createItem(sku, 1, 0);
        // Warm it first: a cold item is warmed from MySQL, on a worker.
        given().get("/items/" + sku + "/availability").then().statusCode(200);

        Answer bought = onEventLoop(new PurchaseCommand(sku, "loop-1", 1, null, null));
        assertEquals(null, bought.failure());
        assertTrue(bought.onEventLoop(), "201 answered on " + bought.thread());
        // With a key it is never refused from memory: the script itself answers sold-out.
        Answer refused = onEventLoop(new PurchaseCommand(sku, "loop-2", 1, "loop-key", "fingerprint"));
        FlashstockException soldOut = assertInstanceOf(FlashstockException.class, refused.failure());
        assertEquals(ProblemCode.SOLD_OUT, soldOut.code());
        assertTrue(refused.onEventLoop(), "409 answered on " + refused.thread());
        assertCounters(sku, 1, 0, 1, 0);
    }

    /** Where a purchase was answered, and its failure (null: an order). */
    private record Answer(boolean onEventLoop, String thread, Throwable failure) {
    }

    /** Runs the purchase from an event loop, as the purchase endpoint does. */
    private Answer onEventLoop(PurchaseCommand command) throws Exception {
        DeductionStrategy strategy = active.get();
        CompletableFuture<Answer> answered = new CompletableFuture<>();
        vertx.getOrCreateContext().runOnContext(ignored -> strategy.purchaseAsync(command).subscribe().with(
                outcome -> answered.complete(here(null)), error -> answered.complete(here(error))));
        return answered.get(10, TimeUnit.SECONDS);
    }

    private static Answer here(Throwable failure) {
        return new Answer(Context.isOnEventLoopThread(), Thread.currentThread().getName(), failure);
    }
}
