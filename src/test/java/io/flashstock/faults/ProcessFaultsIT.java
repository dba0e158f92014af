package io.flashstock.faults;

import static io.flashstock.testsupport.Shop.newSku;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpRequest;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

import io.flashstock.redis.RedisKeys;
import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.Http;
import io.flashstock.testsupport.Lane;
import io.flashstock.testsupport.LocalServersResource;
import io.flashstock.testsupport.OwnRedis;
import io.flashstock.testsupport.ServiceProcess;
import io.flashstock.testsupport.Shop;
import io.restassured.RestAssured;
import io.flashstock.testsupport.Json;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The packaged service as processes of the test's own ({@link ServiceProcess}), on the tests' MySQL and a Redis of
 * the test's own, for every strategy and both redis-lua modes, during a 1,000-unit sale to 1,500 buyers:
 * <ul>
 * <li>the service killed ({@code SIGKILL}) mid-sale and started again: requests in flight get no answer at all,
 * which is as uncertain as {@code outcome-unknown} (their retry with the same Idempotency-Key tells);</li>
 * <li>two instances sharing the sale, one frozen ({@code SIGSTOP}) for 5 s, longer than the lock lease and the
 * relay's claim-after (2 s each), then resumed: the other sells on, takes over what the frozen one held, and the
 * frozen one's late writes are fenced out or found already done.</li>
 * </ul>
 * After each, the checks of {@link FaultySale#verify}. Runs with the other {@code *IT} classes, after packaging.
 */
@Tag(Lane.FULL_TAG)
class ProcessFaultsIT {

    private static final int STOCK = 1000;
    private static final int BUYERS = 1500;

    private final java.util.List<AutoCloseable> started = new java.util.ArrayList<>();

    @AfterEach
    void stopEverything() throws Exception {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
        started.clear();
    }

    @ParameterizedTest
    @ValueSource(strings = {"db-optimistic", "redis-lock", "redis-lua:write-through", "redis-lua:write-behind"})
    void aServiceKilledMidSaleAndStartedAgainNeverLosesNorInventsAnOrder(String strategy) throws Exception {
        OwnRedis redis = own(OwnRedis.start());
        ServiceProcess service = own(ServiceProcess.start(name(strategy, "killed"), settings(strategy, redis)));
        useForSetupAndRetries(service);
        String sku = newSku("killed");
        FaultySale.Result result = FaultySale.sell(sku, STOCK, BUYERS, i -> service.base(), true, () -> {
            service.kill();
            service.restart();
        });
        report(strategy, "killed and restarted", result);
        FaultySale.verify(sku, STOCK, result);
        hotStockAgrees(strategy, redis, sku);
    }

    @ParameterizedTest
    @ValueSource(strings = {"db-optimistic", "redis-lock", "redis-lua:write-through", "redis-lua:write-behind"})
    void twoInstancesWithOneFrozenPastItsLeaseNeverLoseNorInventAnOrder(String strategy) throws Exception {
        OwnRedis redis = own(OwnRedis.start());
        ServiceProcess frozen = own(ServiceProcess.start(name(strategy, "frozen"), settings(strategy, redis)));
        ServiceProcess other = own(ServiceProcess.start(name(strategy, "other"), settings(strategy, redis)));
        useForSetupAndRetries(other);
        String sku = newSku("frozen");
        FaultySale.Result result = FaultySale.sell(sku, STOCK, BUYERS,
                i -> i % 2 == 0 ? frozen.base() : other.base(), false, () -> {
                    frozen.pause();
                    try {
                        Thread.sleep(5_000);
                    } finally {
                        frozen.resume();
                    }
                });
        report(strategy, "one of two frozen for 5 s", result);
        FaultySale.verify(sku, STOCK, result);
        hotStockAgrees(strategy, redis, sku);
    }

    /**
     * Multi-item purchases while the service is killed and started again: 400 two-line carts (items a and b) with
     * Idempotency-Keys, the service killed after about 120 of them were sent. Carts cut off half way (a line held in
     * Redis, the other not yet) must give their units back within the bound (cart-decide-within 1 s here, claim-after
     * 2 s); carts that committed are persisted whole. Every key's retry finds its purchase or none; MySQL holds
     * exactly those purchases, each with both lines, and each item's reserved units equal the purchases.
     */
    @ParameterizedTest
    @ValueSource(strings = {"db-optimistic", "redis-lock", "redis-lua:write-through", "redis-lua:write-behind"})
    void aServiceKilledMidCartsKeepsEveryCartWholeOrGone(String strategy) throws Exception {
        OwnRedis redis = own(OwnRedis.start());
        Map<String, String> settings = settings(strategy, redis);
        settings.put("flashstock.lua.cart-decide-within", "1s");
        ServiceProcess service = own(ServiceProcess.start(name(strategy, "killed-carts"), settings));
        useForSetupAndRetries(service);
        String prefix = newSku("carts");
        String a = prefix + "-a";
        String b = prefix + "-b";
        Shop.createItem(a, 300, 0);
        Shop.createItem(b, 300, 0);
        int carts = 400;
        CountDownLatch sent = new CountDownLatch(120);
        java.util.function.IntFunction<HttpRequest> cart = i -> Http.post(service.base().resolve("/purchases"),
                "{\"userId\":\"c-" + i + "\",\"lines\":[{\"sku\":\"" + b + "\",\"quantity\":1},{\"sku\":\""
                        + a + "\",\"quantity\":1}]}").header("Idempotency-Key", prefix + "-" + i).build();
        java.util.concurrent.CompletableFuture<List<Http.Reply>> storm = java.util.concurrent.CompletableFuture
                .supplyAsync(() -> Http.concurrently(carts, 16, i -> {
                    sent.countDown();
                    return cart.apply(i);
                }));
        sent.await();
        service.kill();
        service.restart();
        List<Http.Reply> replies = storm.get();
        Set<String> answered = new HashSet<>();
        int retried = 0;
        for (int i = 0; i < carts; i++) {
            Http.Reply reply = replies.get(i);
            if (reply.status() != 201) {
                retried++;
                reply = retryUntilDecided(cart.apply(i));
            }
            if (reply.status() == 201) {
                answered.add(Json.text(reply.body(), "purchaseId"));
            }
        }
        System.out.printf("[fault] %s service killed mid-carts: %d carts, %d answered 201 (%d after a retry)%n",
                strategy, carts, answered.size(), retried);
        assertTrue(answered.size() >= 100, "most carts bought: " + answered.size());
        long deadline = System.currentTimeMillis() + 30_000;
        while (true) {
            try {
                Set<String> stored = new HashSet<>(Db.strings("SELECT id FROM purchase WHERE user_id LIKE 'c-%'"
                        + " AND id IN (SELECT purchase_id FROM purchase_order WHERE sku = ?)", a));
                assertEquals(answered, stored, "the purchases in MySQL are exactly those answered 201");
                assertEquals(0, Db.count("SELECT COUNT(*) FROM purchase p WHERE p.id IN (SELECT purchase_id FROM"
                        + " purchase_order WHERE sku = ?) AND (SELECT COUNT(*) FROM purchase_order o WHERE"
                        + " o.purchase_id = p.id) <> 2", a), "purchases without both lines");
                for (String sku : List.of(a, b)) {
                    Map<String, Long> row = Db.item(sku);
                    assertEquals(List.of(300L, 300L - answered.size(), (long) answered.size(), 0L),
                            List.of(row.get("stock"), row.get("available"), row.get("reserved"), row.get("sold")),
                            "MySQL counters of " + sku);
                    hotStockAgrees(strategy, redis, sku);
                }
                return;
            } catch (AssertionError notYet) {
                if (System.currentTimeMillis() > deadline) {
                    throw notYet;
                }
                Thread.sleep(500);
            }
        }
    }

    /** Repeats a request with its Idempotency-Key until it has a definite answer (20 s at most). */
    private static Http.Reply retryUntilDecided(HttpRequest request) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 20_000;
        while (true) {
            Http.Reply reply = Http.send(request);
            boolean pending = reply.status() == 503 || reply.status() == Http.NO_ANSWER
                    || reply.body().contains("request-in-progress");
            if (!pending || System.currentTimeMillis() > deadline) {
                return reply;
            }
            Thread.sleep(200);
        }
    }

    /** redis-lua: the hot counters equal MySQL's within 30 s. */
    private static void hotStockAgrees(String strategy, OwnRedis redis, String sku) throws InterruptedException {
        if (strategy.startsWith("redis-lua")) {
            FaultySale.awaitHotStockAgrees(sku, () -> redis.hmget(RedisKeys.stock(sku), FaultySale.COUNTERS));
        }
    }

    private static Map<String, String> settings(String strategy, OwnRedis redis) {
        return ServiceProcess.settings(strategy, LocalServersResource.jdbcUrl(), redis.hosts());
    }

    private static void useForSetupAndRetries(ServiceProcess service) {
        RestAssured.baseURI = "http://127.0.0.1";
        RestAssured.port = service.port();
    }

    private static String name(String strategy, String role) {
        return strategy.replace(':', '-') + "-" + role;
    }

    private static void report(String strategy, String fault, FaultySale.Result result) {
        System.out.printf("[fault] %s service %s: %s, slowest %d ms%n", strategy, fault, result.statuses(),
                result.slowestMillis());
    }

    private <T extends AutoCloseable> T own(T resource) {
        started.add(resource);
        return resource;
    }
}
