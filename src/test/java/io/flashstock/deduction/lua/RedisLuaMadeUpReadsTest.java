package io.flashstock.deduction.lua;

import static io.flashstock.testsupport.Api.given;
import static io.flashstock.testsupport.Shop.createItem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import io.flashstock.abuse.MadeUpSkus;
import io.flashstock.item.Availability;
import io.flashstock.redis.RedisKeys;
import io.flashstock.testsupport.Http;
import io.flashstock.testsupport.InProcess;
import io.flashstock.testsupport.Lane;
import io.flashstock.testsupport.OwnRedis;
import io.flashstock.testsupport.OwnRedisResource;
import io.flashstock.testsupport.Pause;
import io.flashstock.testsupport.Shop;
import io.flashstock.testsupport.Tokens;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * redis-lua write-behind: a storm of availability reads of made-up skus, every one 404, records none of them as an
 * active item, so no pod's relay, reconcile or sweep polls them afterwards (issue 32: 3,204 such reads put 3,254
 * members into {@code fs:active} and the idle Redis load went from 3 to 3,908 commands/s, for
 * {@code flashstock.lua.active-for}, 2 minutes). bench/abuse.sh measures the same against the packaged jar with 40,000
 * reads.
 * <p>
 * The storm: {@link #READS} made-up skus (200 in the gate, 3,000 in the full lane) read on {@value #THREADS} threads
 * through {@link Availability#read} (what the endpoint calls when memory cannot answer), then {@value #OVER_HTTP}
 * more over HTTP with a buyer token. Then, {@link #WAIT_MILLIS} later (1 s in the gate, 5 s in the full lane), on the Redis server of the
 * class's own ({@link OwnRedisResource}, never the shared one):
 * <ul>
 * <li>no member of {@code fs:active} is a made-up sku (the old bug added one per made-up sku), and it has at most
 * {@value #FEW_MORE} more members than before: items of the classes run before in this Quarkus start, announced again
 * when the expiry job or a sweep moves one of their orders, are a few;</li>
 * <li>the idle command rate ({@code INFO stats} {@code total_commands_processed} over {@link #WINDOW_MILLIS}, 1 s in
 * the gate, 5 s in the full lane) is at most {@value #IDLE_ADDED_AT_MOST}/s above the rate before the storm: on an
 * idle pod, the "at most 50/s". The old bug added about one command per second per made-up sku for 2
 * minutes: 200/s and more in the gate;</li>
 * <li>the items this pod tracks as active (the gauge {@code flashstock.items.tracked{kind=active-items}}) grew by at
 * most {@value #FEW_MORE} likewise.</li>
 * </ul>
 * It shares the Quarkus start of {@code CartCrashWriteBehindTest} and {@code HotStockWriteBehindTest} (their profile
 * and their own Redis), so it costs no start of its own.
 */
@QuarkusTest
@TestProfile(CartCrashes.WriteBehindProfile.class)
@WithTestResource(OwnRedisResource.class)
class RedisLuaMadeUpReadsTest {

    static final int READS = Lane.size(200, 3_000);
    static final int OVER_HTTP = 50;
    static final int THREADS = 16;
    static final long WAIT_MILLIS = Lane.size(1_000, 5_000);
    static final long WINDOW_MILLIS = Lane.size(1_000, 5_000);
    static final int FEW_MORE = 20;
    static final double IDLE_ADDED_AT_MOST = 50;

    /**
     * Real items read and tried in {@link #readsAndRefusalsOfRealItemsMakeNoItemActive}: 20 in the gate, 40 in the full
     * lane (200 took 26 s of CI's step 3 and proved nothing more: the old code made every one of them active).
     */
    static final int REAL_ITEMS = Lane.size(20, 40);

    @Inject
    Availability availability;

    @Inject
    ActiveItems activeItems;

    /**
     * Real items read and tried, every purchase refused, make no item active; a purchase that takes units does, as
     * before. Before, a read of an item's availability (or a refused purchase, or its first warm-up) put it into every
     * pod's relay and reconcile rounds for {@code flashstock.lua.active-for}: a buyer reading a whole catalog made each
     * pod's relay look at every item once a second, and the hot item's orders waited behind those looks. Half the
     * items are tried before they are read (their first purchase warms them and runs the script: a refusal from
     * Redis), half after (refused from memory).
     */
    @Test
    void readsAndRefusalsOfRealItemsMakeNoItemActive() {
        OwnRedis redis = OwnRedisResource.server();
        String prefix = Shop.newSku("quiet");
        List<String> skus = IntStream.range(0, REAL_ITEMS).mapToObj(i -> prefix + "-" + i).toList();
        for (int i = 0; i < skus.size(); i++) {
            String sku = skus.get(i);
            createItem(sku, 0, 0);
            if (i % 2 == 0) {
                Shop.purchase(sku, "quiet-buyer", 1, null).then().statusCode(409);
            }
            given().get("/items/" + sku + "/availability").then().statusCode(200);
            Shop.purchase(sku, "quiet-buyer", 1, null).then().statusCode(409);
        }
        String bought = prefix + "-bought";
        createItem(bought, 5, 0);
        Shop.buy(bought, "quiet-buyer", 1);

        long deadline = System.currentTimeMillis() + 3_000; // the announcement is sent without waiting for it
        List<String> announced = redis.call("ZRANGE", RedisKeys.activeItems(), "0", "-1");
        while (!announced.contains(bought) && System.currentTimeMillis() < deadline) {
            Pause.sleep(20);
            announced = redis.call("ZRANGE", RedisKeys.activeItems(), "0", "-1");
        }
        assertTrue(announced.contains(bought), "the item bought is announced: " + announced);
        assertTrue(activeItems.all().contains(bought), "the item bought is in this pod's rounds");
        assertEquals(List.of(), announced.stream().filter(skus::contains).toList(), "read or refused, announced");
        assertEquals(List.of(), activeItems.all().stream().filter(skus::contains).toList(),
                "read or refused, in this pod's rounds");
    }

    @Test
    void madeUpReadsLeaveNoActiveItemAndNoIdleLoad() {
        OwnRedis redis = OwnRedisResource.server();
        long activeBefore = Long.parseLong(redis.call("ZCARD", RedisKeys.activeItems()).get(0));
        double idleBefore = commandsPerSecond(redis);
        Map<String, Double> trackedBefore = InProcess.trackedItems();

        String prefix = MadeUpSkus.prefix();
        long started = System.nanoTime();
        Map<String, Long> answers = MadeUpSkus.storm(READS, THREADS, i -> {
            availability.read(MadeUpSkus.sku(prefix, i));
            return "ok";
        });
        String buyer = Tokens.bearer("ghost-reader", "buyer");
        Map<String, Long> overHttp = MadeUpSkus.storm(OVER_HTTP, THREADS, i -> {
            Http.Reply reply = Http.send(Http.get("/items/" + MadeUpSkus.sku(prefix, READS + i) + "/availability",
                    buyer));
            return reply.status() + (reply.body().contains("item-not-found") ? " item-not-found" : " other");
        });
        long stormMillis = (System.nanoTime() - started) / 1_000_000;

        Pause.sleep(WAIT_MILLIS);
        List<String> active = redis.call("ZRANGE", RedisKeys.activeItems(), "0", "-1");
        long madeUp = active.stream().filter(member -> member.startsWith(prefix)).count();
        double idleAfter = commandsPerSecond(redis);
        Map<String, Double> trackedAfter = InProcess.trackedItems();
        System.out.printf("[abuse] redis-lua write-behind: %,d made-up availability reads and %d over HTTP in %,d ms:"
                + " %s, HTTP %s; fs:active %d -> %d members (%d made up); idle Redis %.1f -> %.1f commands/s %d ms"
                + " later; tracked %s -> %s%n", READS, OVER_HTTP, stormMillis, answers, overHttp, activeBefore,
                active.size(), madeUp, idleBefore, idleAfter, WAIT_MILLIS, trackedBefore, trackedAfter);

        assertEquals(MadeUpSkus.all("item-not-found", READS), answers, "every made-up read is 404");
        assertEquals(MadeUpSkus.all("404 item-not-found", OVER_HTTP), overHttp, "over HTTP too");
        assertEquals(0, madeUp, "made-up skus among the active items: " + active);
        assertTrue(active.size() <= activeBefore + FEW_MORE, "fs:active grew from " + activeBefore + " to "
                + active.size() + " with made-up reads");
        assertTrue(idleAfter <= idleBefore + IDLE_ADDED_AT_MOST, "idle Redis commands/s " + idleBefore
                + " before the storm, " + idleAfter + " after it");
        String activeItems = "active-items/redis-lua";
        assertTrue(trackedAfter.getOrDefault(activeItems, 0.0) <= trackedBefore.getOrDefault(activeItems, 0.0)
                + FEW_MORE, activeItems + ": " + trackedBefore + " -> " + trackedAfter);
    }

    /**
     * An item's announcement that failed is sent again by the pod's next watch round, not only by its next purchase:
     * another pod must learn of an item with pending orders even if nobody buys it again (sold out) and this pod dies.
     * Here {@code fs:active} holds a string while the item is bought, so the announcement fails (WRONGTYPE).
     */
    @Test
    void aFailedAnnouncementIsSentAgainWithoutAnotherPurchase() {
        OwnRedis redis = OwnRedisResource.server();
        String sku = Shop.newSku("unannounced");
        createItem(sku, 1, 0);
        boolean existed = "1".equals(redis.call("EXISTS", RedisKeys.activeItems()).get(0));
        if (existed) {
            redis.call("RENAME", RedisKeys.activeItems(), "saved-active-items");
        }
        redis.call("SET", RedisKeys.activeItems(), "not a sorted set");
        try {
            Shop.buy(sku, "announcer", 1);
            Pause.sleep(200); // the announcement has failed
        } finally {
            redis.call("DEL", RedisKeys.activeItems());
            if (existed) {
                redis.call("RENAME", "saved-active-items", RedisKeys.activeItems());
            }
        }
        long deadline = System.currentTimeMillis() + 5_000; // a watch round runs every second
        while (!redis.call("ZRANGE", RedisKeys.activeItems(), "0", "-1").contains(sku)
                && System.currentTimeMillis() < deadline) {
            Pause.sleep(50);
        }
        assertTrue(redis.call("ZRANGE", RedisKeys.activeItems(), "0", "-1").contains(sku), "announced again");
    }

    /** The server's commands per second over {@link #WINDOW_MILLIS}, without the second reading's own INFO. */
    private static double commandsPerSecond(OwnRedis redis) {
        long first = commandsProcessed(redis);
        Pause.sleep(WINDOW_MILLIS);
        long second = commandsProcessed(redis);
        return (second - first - 1) * 1000.0 / WINDOW_MILLIS;
    }

    private static long commandsProcessed(OwnRedis redis) {
        for (String line : redis.call("INFO", "stats").get(0).split("\r?\n")) {
            if (line.startsWith("total_commands_processed:")) {
                return Long.parseLong(line.substring("total_commands_processed:".length()).trim());
            }
        }
        throw new IllegalStateException("INFO stats has no total_commands_processed");
    }
}
