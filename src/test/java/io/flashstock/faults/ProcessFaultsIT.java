package io.flashstock.faults;

import static io.flashstock.testsupport.Shop.newSku;

import java.util.HashMap;
import java.util.Map;

import io.flashstock.redis.RedisKeys;
import io.flashstock.testsupport.LocalServersResource;
import io.flashstock.testsupport.OwnRedis;
import io.flashstock.testsupport.ServiceProcess;
import io.restassured.RestAssured;
import org.junit.jupiter.api.AfterEach;
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

    /** redis-lua: the hot counters equal MySQL's within 30 s. */
    private static void hotStockAgrees(String strategy, OwnRedis redis, String sku) throws InterruptedException {
        if (strategy.startsWith("redis-lua")) {
            FaultySale.awaitHotStockAgrees(sku, () -> redis.hmget(RedisKeys.stock(sku), FaultySale.COUNTERS));
        }
    }

    private static Map<String, String> settings(String strategy, OwnRedis redis) {
        String[] parts = strategy.split(":");
        Map<String, String> settings = new HashMap<>();
        settings.put("quarkus.profile", parts[0]);
        settings.put("quarkus.datasource.jdbc.url", LocalServersResource.jdbcUrl());
        settings.put("quarkus.datasource.username", LocalServersResource.username());
        settings.put("quarkus.datasource.password", LocalServersResource.password());
        settings.put("quarkus.redis.hosts", redis.hosts());
        settings.put("flashstock.lua.claim-after", "2s");
        if (parts.length > 1) {
            settings.put("flashstock.lua.persistence", parts[1]);
        }
        return settings;
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
