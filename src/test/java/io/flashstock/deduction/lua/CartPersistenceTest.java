package io.flashstock.deduction.lua;

import static io.flashstock.testsupport.Api.given;
import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.deduction.CartCommand;
import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.deduction.lua.PendingOrderWriter.CartWrite;
import io.flashstock.deduction.lua.PendingOrderWriter.Outcome;
import io.flashstock.order.Purchase;
import io.flashstock.redis.RedisKeys;
import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.InProcess;
import io.flashstock.testsupport.LocalServersResource;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/** How a COMMITTED cart (redis-lua) reaches MySQL: its decision record, and the writers that persist it. */
@QuarkusTest
@TestProfile(StrategyProfiles.RedisLuaWriteBehind.class)
@WithTestResource(LocalServersResource.class)
class CartPersistenceTest {

    @Inject
    PendingOrderWriter writer;

    @Inject
    Carts carts;

    @Inject
    Crashes crashes;

    @Inject
    RedisDataSource redis;

    @Inject
    FlashstockConfig config;

    /**
     * Two writers of one COMMITTED cart (two pods' relays, or a relay and a drain for a read): the second waits for
     * the item's row lock while the first commits, and is then refused the units that the first just took. The cart
     * is stored, so the second must answer PRESENT, never a refusal that gives its lines back in Redis. Before, it
     * answered SOLD_OUT and the lines' units came back in Redis while MySQL held the purchase.
     */
    @Test
    void aCartStoredByAnotherWriterMeanwhileIsPresentNotRefused() throws Exception {
        String sku = newSku("cart-race");
        createItem(sku, 1, 0);
        String purchaseId = UUID.randomUUID().toString();
        String orderId = UUID.randomUUID().toString();
        Instant created = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Instant expires = created.plusSeconds(600);

        try (Connection first = Db.begin()) {
            // The first writer, as insertCart does it: the units, the purchase, its line; not committed yet.
            assertEquals(1, Db.update(first, "UPDATE item SET available = available - 1, reserved = reserved + 1,"
                    + " version = version + 1 WHERE sku = ?", sku));
            assertEquals(1, Db.update(first, "INSERT INTO purchase (id, user_id, line_count, created_at, expires_at)"
                    + " VALUES (?, 'racer', 1, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6) + INTERVAL 10 MINUTE)", purchaseId));
            assertEquals(1, Db.update(first, "INSERT INTO purchase_order (id, sku, user_id, quantity, status,"
                    + " created_at, expires_at, updated_at, purchase_id) VALUES (?, ?, 'racer', 1, 'RESERVED',"
                    + " UTC_TIMESTAMP(6), UTC_TIMESTAMP(6) + INTERVAL 10 MINUTE, UTC_TIMESTAMP(6), ?)", orderId, sku,
                    purchaseId));

            // The second writer finds no purchase yet and waits for the item's row lock.
            Purchase purchase = new Purchase();
            purchase.id = purchaseId;
            purchase.userId = "racer";
            purchase.lines = 1;
            purchase.createdAt = created;
            purchase.expiresAt = expires;
            PendingOrder line = new PendingOrder("1-0", orderId, sku, "racer", 1, null, null, created, expires,
                    "other-pod", "epoch", purchaseId);
            CompletableFuture<CartWrite> second = CompletableFuture.supplyAsync(
                    () -> writer.persistCart(purchase, List.of(line)));
            assertTrue(Db.awaitLockWait(5_000), "the second writer waits for the item's row lock");
            assertFalse(second.isDone());
            first.commit();

            assertEquals(Outcome.PRESENT, second.get(10, TimeUnit.SECONDS).outcome());
        }
        assertEquals(1, Db.count("SELECT COUNT(*) FROM purchase WHERE id = ?", purchaseId));
        assertEquals(0L, Db.item(sku).get("available"));
        assertEquals(1L, Db.item(sku).get("reserved"));
    }

    /**
     * The decision record is what persists a COMMITTED cart: it must outlive any wait for MySQL, not expire with the
     * cart's Idempotency-Key (24 h by default, shorter if an operator lowers it), or a long outage would give back an
     * acknowledged cart. Once the cart is stored it lives as long as the key again.
     */
    @Test
    void aCommittedRecordLivesUntilItsCartIsStored() {
        String sku = newSku("cart-record");
        createItem(sku, 5, 0);
        String purchaseId = UUID.randomUUID().toString();
        String record = RedisKeys.cart("recorder", purchaseId);
        assertEquals("OK", carts.open(new CartCommand("recorder", List.of(new CartCommand.Line(sku, 1)), null, null),
                purchaseId).reply());
        long keyTtl = redis.key().ttl(record);
        Instant created = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        CommittedCart cart = new CommittedCart(purchaseId, "recorder", null, null, created,
                created.plusSeconds(600), List.of(new CartLine(sku, 1, UUID.randomUUID().toString(), "1-0", "e")));

        assertEquals(Carts.State.COMMITTED, carts.commit(cart));
        assertTrue(redis.key().ttl(record) >= Carts.COMMITTED_RECORD_TTL.toSeconds() - 60,
                "a COMMITTED record lives " + redis.key().ttl(record) + " s, its key " + keyTtl + " s");

        assertEquals(Outcome.INSERTED, carts.persist(cart).outcome());
        assertTrue(redis.key().ttl(record) <= keyTtl, "stored: back to the key's TTL");
        assertEquals(1, Db.count("SELECT COUNT(*) FROM purchase WHERE id = ?", purchaseId));
    }

    /**
     * A stored cart whose entries cannot be removed from Redis right away (Redis failing after the MySQL commit) is
     * still the stored cart: the relays settle the entries later. Before, the failure came out of persist, and a
     * write-through purchase answered 503 outcome-unknown for a cart that was in MySQL.
     */
    @Test
    void aStoredCartIsTheAnswerEvenWhenItsEntriesCannotBeSettledNow() {
        String sku = newSku("cart-settle");
        createItem(sku, 5, 0);
        String purchaseId = UUID.randomUUID().toString();
        Instant created = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        CommittedCart cart = new CommittedCart(purchaseId, "settler", null, null, created,
                created.plusSeconds(600), List.of(new CartLine(sku, 1, UUID.randomUUID().toString(), "1-0", "e")));
        // The item's stream key holds a string: every stream command on it fails, as on a failing Redis.
        redis.value(String.class).set(RedisKeys.orders(sku), "not a stream");
        try {
            assertEquals(Outcome.INSERTED, carts.persist(cart).outcome());
        } finally {
            redis.key().del(RedisKeys.orders(sku));
        }
        assertEquals(1, Db.count("SELECT COUNT(*) FROM purchase WHERE id = ?", purchaseId));
    }

    /**
     * A refused cart (a made-up sku, a line over the stock) leaves its ABORTED record only while a line of it may still
     * wait in a stream for a relay, not for the Idempotency-Key's 24 h: before, every refused cart left a record for a
     * day, so a caller could grow Redis with carts of made-up skus. The key of the refused cart is released as before.
     */
    @Test
    void aRefusedCartLeavesItsRecordForSecondsNotADay() {
        String sku = newSku("cart-refused");
        createItem(sku, 1, 0);
        String user = "refused-" + UUID.randomUUID().toString().substring(0, 8);
        given().contentType(ContentType.JSON)
                .body("{\"userId\":\"" + user + "\",\"lines\":[{\"sku\":\"" + sku + "-made-up\",\"quantity\":1}]}")
                .post("/purchases").then().statusCode(404);
        given().contentType(ContentType.JSON).header("Idempotency-Key", "refused-key")
                .body("{\"userId\":\"" + user + "\",\"lines\":[{\"sku\":\"" + sku + "\",\"quantity\":2}]}")
                .post("/purchases").then().statusCode(409);

        long abortedTtl = config.lua().cartDecideWithin().plus(config.lua().claimAfter().multipliedBy(2)).toSeconds();
        assertTrue(config.lua().idempotencyTtl().toSeconds() > abortedTtl, "the test tells the two lifetimes apart");
        List<String> records = InProcess.redisKeys(RedisKeys.cart(user, "*"));
        assertEquals(2, records.size(), "one record per refused cart: " + records);
        for (String record : records) {
            assertEquals("ABORTED", redis.hash(String.class).hget(record, "state"));
            long ttl = redis.key().ttl(record);
            assertTrue(ttl > 0 && ttl <= abortedTtl, record + " lives " + ttl + " s, at most " + abortedTtl);
        }
        assertEquals(List.of(), InProcess.redisKeys(RedisKeys.cartIdempotency(user, "*")), "the key released");
    }

    /**
     * A key-less cart, once stored, keeps its decision record only while a line of it may still wait in a stream, as a
     * refused cart does: nothing replays it. A keyed one keeps it as long as its Idempotency-Key. Before, every
     * key-less cart left its record for the key's 24 h, so Redis grew with a day's carts.
     */
    @Test
    void aStoredKeyLessCartLeavesItsRecordForSecondsNotADay() {
        String sku = newSku("cart-stored");
        createItem(sku, 5, 0);
        String user = "stored-" + UUID.randomUUID().toString().substring(0, 8);
        String keyless = given().contentType(ContentType.JSON)
                .body("{\"userId\":\"" + user + "\",\"lines\":[{\"sku\":\"" + sku + "\",\"quantity\":1}]}")
                .post("/purchases").then().statusCode(201).extract().path("purchaseId");
        String keyed = given().contentType(ContentType.JSON).header("Idempotency-Key", "stored-key")
                .body("{\"userId\":\"" + user + "\",\"lines\":[{\"sku\":\"" + sku + "\",\"quantity\":1}]}")
                .post("/purchases").then().statusCode(201).extract().path("purchaseId");
        given().get("/purchases/" + keyless).then().statusCode(200); // drains the item: both carts stored
        given().get("/purchases/" + keyed).then().statusCode(200);

        long abortedTtl = config.lua().cartDecideWithin().plus(config.lua().claimAfter().multipliedBy(2)).toSeconds();
        assertTrue(config.lua().idempotencyTtl().toSeconds() > abortedTtl, "the test tells the two lifetimes apart");
        long keylessTtl = redis.key().ttl(RedisKeys.cart(user, keyless));
        assertTrue(keylessTtl > 0 && keylessTtl <= abortedTtl, "key-less: " + keylessTtl + " s, at most " + abortedTtl);
        long keyedTtl = redis.key().ttl(RedisKeys.cart(user, keyed));
        assertTrue(keyedTtl > abortedTtl && keyedTtl <= config.lua().idempotencyTtl().toSeconds(),
                "keyed: " + keyedTtl + " s, the key's TTL");
    }

    /**
     * A COMMITTED cart that MySQL refuses (Redis had more units than MySQL, as after a failover): its lines are given
     * back, and it is ABORTED with its Idempotency-Key released, as a refused single purchase is. Before, the record
     * stayed COMMITTED for a day: a write-behind retry with the key got a 201 replay of orders MySQL did not have, and
     * a write-through one a 409 request-in-progress.
     */
    @Test
    void aCartMySqlRefusesIsAbortedAndItsKeyReleased() {
        String user = "stale-" + UUID.randomUUID().toString().substring(0, 8);
        String key = "stale-key";
        String purchaseId = UUID.randomUUID().toString();
        CommittedCart cart = committedCartMySqlRefuses("cart-stale", user, key, purchaseId);

        assertEquals(Outcome.SOLD_OUT, carts.persist(cart).outcome());
        assertEquals(null, carts.committed(user, purchaseId), "answered as COMMITTED no more");
        assertEquals("ABORTED", redis.hash(String.class).hget(RedisKeys.cart(user, purchaseId), "state"));
        assertEquals(null, redis.value(String.class).get(RedisKeys.cartIdempotency(user, key)), "the key released");
        assertEquals(0, Db.count("SELECT COUNT(*) FROM purchase WHERE id = ?", purchaseId));
    }

    /**
     * A COMMITTED cart that MySQL refuses while its record cannot be written (its user's shard failing): nothing is
     * taken back and the writer fails, so the relays meet its lines again; once the record can be written, the next
     * writer is refused again and aborts it. Before, the lines were given back anyway and the record stayed
     * COMMITTED for the key's life over lines nobody held: a retry with its key got a 201 replay of orders MySQL did
     * not have (write-behind) or 409 request-in-progress (write-through).
     */
    @Test
    void aCartRefusedWhileItsRecordCannotBeWrittenKeepsItsLinesUntilItIs() {
        String user = "unrecorded-" + UUID.randomUUID().toString().substring(0, 8);
        String key = "unrecorded-key";
        String purchaseId = UUID.randomUUID().toString();
        CommittedCart cart = committedCartMySqlRefuses("cart-unrecorded", user, key, purchaseId);

        // The record's key holds a string for a moment: every script on it fails, as on a failing shard.
        String record = RedisKeys.cart(user, purchaseId);
        Map<String, String> fields = redis.hash(String.class).hgetall(record);
        redis.key().del(record);
        redis.value(String.class).set(record, "not a hash");
        try {
            assertThrows(RuntimeException.class, () -> carts.persist(cart), "a refusal Redis could not record");
        } finally {
            redis.key().del(record);
            redis.hash(String.class).hset(record, fields);
        }
        assertEquals(purchaseId + " fp", redis.value(String.class).get(RedisKeys.cartIdempotency(user, key)),
                "the key still held by the cart");
        String stream = RedisKeys.orders(cart.lines().get(0).sku());
        assertEquals(1, redis.stream(String.class).xlen(stream), "the line not taken back");

        assertEquals(Outcome.SOLD_OUT, carts.persist(cart).outcome(), "the relay's next try");
        assertEquals(0, redis.stream(String.class).xlen(stream), "the line taken back");
        assertEquals("ABORTED", redis.hash(String.class).hget(record, "state"));
        assertEquals(null, redis.value(String.class).get(RedisKeys.cartIdempotency(user, key)), "the key released");
        assertEquals(0, Db.count("SELECT COUNT(*) FROM purchase WHERE id = ?", purchaseId));
    }

    /**
     * A one-line cart of a new item, COMMITTED in Redis, whose item MySQL has no units of any more (as after a
     * failover to a replica that missed writes): every writer is refused SOLD_OUT. Its line's entry is in the item's
     * stream until the line is taken back.
     */
    private CommittedCart committedCartMySqlRefuses(String prefix, String user, String key, String purchaseId) {
        String sku = newSku(prefix);
        createItem(sku, 5, 0);
        assertEquals("OK", carts.open(new CartCommand(user, List.of(new CartCommand.Line(sku, 1)), key, "fp"),
                purchaseId).reply());
        redis.execute("XGROUP", "CREATE", RedisKeys.orders(sku), "relay", "0", "MKSTREAM"); // as purchase_rules.lua
        String entry = redis.stream(String.class).xadd(RedisKeys.orders(sku), Map.of("test", "line"));
        Instant created = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        CommittedCart cart = new CommittedCart(purchaseId, user, key, "fp", created, created.plusSeconds(600),
                List.of(new CartLine(sku, 1, UUID.randomUUID().toString(), entry, "e")));
        assertEquals(Carts.State.COMMITTED, carts.commit(cart));
        assertEquals(1, Db.update("UPDATE item SET available = 0, stock = 0 WHERE sku = ?", sku));
        return cart;
    }

    /**
     * A cart whose record cannot be read (its user's shard failing) holds up no single order of the same item: the
     * relay persists the item's other entries and leaves the cart's line for a later round. Before, the cart's failure
     * ended the item's round before any of them, so every order of the item waited for that user's shard.
     */
    @Test
    void aCartWhoseRecordFailsHoldsUpNoOtherOrderOfItsItem() throws Exception {
        String sku = newSku("cart-failing");
        createItem(sku, 5, 0);
        String user = "failing-" + UUID.randomUUID().toString().substring(0, 8);
        CompletableFuture<Integer> cart = cartHeldAtItsFirstLine(sku, user);
        String record = null;
        Map<String, String> fields = null;
        try {
            assertTrue(crashes.awaitHeld(10_000), "the cart's first line reserved");
            List<String> records = InProcess.redisKeys(RedisKeys.cart(user, "*"));
            assertEquals(1, records.size(), records.toString());
            record = records.get(0);
            fields = redis.hash(String.class).hgetall(record);
            // The record's key holds a string: every script on it fails, as on a failing shard.
            redis.key().del(record);
            redis.value(String.class).set(record, "not a hash");

            String single = io.flashstock.testsupport.Shop.buy(sku, "single-" + user, 1);
            assertTrue(io.flashstock.testsupport.Pause.until(
                    () -> Db.count("SELECT COUNT(*) FROM purchase_order WHERE id = ?", single) == 1, 10_000),
                    "the single order persisted by the relay while the cart's record fails");
        } finally {
            restoreRecord(record, fields);
            crashes.release();
        }
        assertHeldAsAnswered(sku, cart.get(30, TimeUnit.SECONDS));
    }

    /**
     * Another pod's idle entries, claimed by this pod's relay, among them the line of a cart whose record fails (its
     * user's shard failing) ahead of a single order: the single order is settled in the same claim, the cart's line
     * waits for its record. The entries are made another pod's by moving them from this relay (which held them after
     * its MySQL commit, crashed before settling) to a consumer that never comes back. Before, the cart's failure ended
     * the claim before the single order, which then waited for that user's shard too.
     */
    @Test
    void anotherPodsIdleCartWhoseRecordFailsHoldsUpNoOtherClaimedOrder() throws Exception {
        String sku = newSku("cart-claimed");
        createItem(sku, 5, 0);
        String user = "claimed-" + UUID.randomUUID().toString().substring(0, 8);
        String stream = RedisKeys.orders(sku);
        CompletableFuture<Integer> cart = cartHeldAtItsFirstLine(sku, user);
        String record = null;
        Map<String, String> fields = null;
        try {
            assertTrue(crashes.awaitHeld(10_000), "the cart's first line reserved");
            record = InProcess.redisKeys(RedisKeys.cart(user, "*")).get(0);
            fields = redis.hash(String.class).hgetall(record);
            crashes.crashAt(Checkpoints.Step.RELAY_COMMITTED);
            String single = io.flashstock.testsupport.Shop.buy(sku, "single-" + user, 1);
            assertTrue(io.flashstock.testsupport.Pause.until(
                    () -> Db.count("SELECT COUNT(*) FROM purchase_order WHERE id = ?", single) == 1, 10_000),
                    "the single order committed, its entry not settled");
            List<String> held = heldEntries(stream);
            assertEquals(2, held.size(), "the cart's line and the single order, held by this pod's relay");

            // Another pod's now, idle from here on: this relay claims them after claim-after (2 s).
            redis.execute("XCLAIM", stream, PendingStream.GROUP, "gone-pod", "0", held.get(0), held.get(1), "JUSTID");
            crashes.none();
            redis.key().del(record); // the record's key holds a string: every script on it fails
            redis.value(String.class).set(record, "not a hash");

            assertTrue(io.flashstock.testsupport.Pause.until(() -> heldEntries(stream).equals(held.subList(0, 1)),
                    15_000), "the single order settled in the claim, the cart's line left: " + heldEntries(stream));
            assertEquals(1, redis.stream(String.class).xlen(stream), "only the cart's line in the stream");
        } finally {
            crashes.none();
            restoreRecord(record, fields);
            crashes.release();
        }
        assertHeldAsAnswered(sku, cart.get(30, TimeUnit.SECONDS));
    }

    /** A one-line cart of {@code sku} by {@code user}, sent now and held once its line holds its unit in Redis. */
    private CompletableFuture<Integer> cartHeldAtItsFirstLine(String sku, String user) {
        crashes.holdAt(Checkpoints.Step.CART_FIRST_LINE);
        return CompletableFuture.supplyAsync(() -> given().contentType(ContentType.JSON)
                .body("{\"userId\":\"" + user + "\",\"lines\":[{\"sku\":\"" + sku + "\",\"quantity\":1}]}")
                .post("/purchases").statusCode());
    }

    /** The cart's record as it was before the test broke it (null: never read). */
    private void restoreRecord(String record, Map<String, String> fields) {
        if (record != null) {
            redis.key().del(record);
            redis.hash(String.class).hset(record, fields);
            redis.key().expire(record, 600);
        }
    }

    /**
     * The item of a 5-unit test with one single order beside a held cart: 2 units held in MySQL and Redis if the cart
     * answered 201 (it went on once its record was back), else 1 (it was given up).
     */
    private void assertHeldAsAnswered(String sku, int answer) {
        int held = answer == 201 ? 2 : 1;
        assertTrue(io.flashstock.testsupport.Pause.until(() -> Db.count(
                "SELECT COUNT(*) FROM item WHERE sku = ? AND available = ? AND reserved = ?", sku, 5 - held, held) == 1
                && String.valueOf(5 - held).equals(redis.hash(String.class).hget(RedisKeys.stock(sku), "available")),
                15_000), "cart answered " + answer + ": " + held + " unit(s) held in MySQL and Redis");
    }

    /** The ids of the stream's entries held unsettled by any consumer of the relays' group, oldest first. */
    private List<String> heldEntries(String stream) {
        var pending = redis.execute("XPENDING", stream, PendingStream.GROUP, "-", "+", "100");
        List<String> ids = new java.util.ArrayList<>();
        for (var entry : pending) {
            ids.add(entry.get(0).toString());
        }
        return ids;
    }

    /**
     * A keyed cart whose line this pod knows to be sold out is refused before any line takes units, as a key-less one
     * is: before, the lines ahead of it in sku order were reserved and given back (the first item's change counter
     * moved twice) for one 409.
     */
    @Test
    void aKeyedCartWithALineKnownSoldOutTakesNothingFirst() {
        String prefix = newSku("cart-known");
        createItem(prefix + "-a", 5, 0);
        createItem(prefix + "-b", 0, 0);
        given().get("/items/" + prefix + "-a/availability").then().statusCode(200);
        given().get("/items/" + prefix + "-b/availability").then().statusCode(200);
        String seq = redis.hash(String.class).hget(RedisKeys.stock(prefix + "-a"), "seq");
        given().contentType(ContentType.JSON).header("Idempotency-Key", "known-" + UUID.randomUUID())
                .body("{\"userId\":\"known\",\"lines\":[{\"sku\":\"" + prefix + "-a\",\"quantity\":1},"
                        + "{\"sku\":\"" + prefix + "-b\",\"quantity\":1}]}")
                .post("/purchases").then().statusCode(409).body("type", org.hamcrest.Matchers.endsWith("sold-out"));
        assertEquals(seq, redis.hash(String.class).hget(RedisKeys.stock(prefix + "-a"), "seq"),
                "the first line's item was never touched");
        assertEquals(0L, Db.item(prefix + "-a").get("reserved"));
    }
}
