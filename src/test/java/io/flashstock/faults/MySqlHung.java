package io.flashstock.faults;

import static io.flashstock.testsupport.Shop.newSku;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpRequest;
import java.time.Duration;

import io.flashstock.redis.RedisKeys;
import io.flashstock.testsupport.FaultyMySqlResource;
import io.flashstock.testsupport.Http;
import io.flashstock.testsupport.Lane;
import io.quarkus.redis.datasource.RedisDataSource;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/**
 * MySQL hangs in the middle of a sale: the proxy between the service and MySQL freezes (connections stay open and
 * new ones are accepted, nothing moves either way) for four JDBC socket timeouts, longer than any of the service's
 * time bounds. Every request gets its answer within about twice the socket timeout, readiness goes DOWN within the
 * readiness check's own bound while it lasts (except in write-behind, which sells without MySQL) and UP again after,
 * and the checks of {@link FaultySale#verify} hold. One subclass per strategy; the gate's runs against
 * {@link io.flashstock.deduction.StrategyProfiles.DbOptimisticMySqlFaults short MySQL timeouts} (a 2 s socket timeout, an
 * 8 s hang), the full lane's against the shipped 5 s (a 20 s hang).
 */
abstract class MySqlHung {

    @Inject
    RedisDataSource redis;

    /** Whether the strategy keeps the item's counters in Redis (redis-lua): they must equal MySQL's afterwards. */
    boolean keepsHotStock() {
        return false;
    }

    /** The JDBC socket timeout the service under test runs with, in milliseconds. */
    private static long socketTimeoutMillis() {
        return ConfigProvider.getConfig()
                .getValue("quarkus.datasource.jdbc.additional-jdbc-properties.socketTimeout", Long.class);
    }

    /** Whether this strategy needs MySQL to sell, and so reports not ready while MySQL hangs. */
    boolean readinessFollowsMySql() {
        return true;
    }

    @Test
    void aHungMySqlGivesBoundedAnswersAndNeverLosesNorInventsAnOrder() throws Exception {
        String sku = newSku("hung");
        int stock = Lane.size(300, 1000);
        // Four socket timeouts: past every bound of the service's (a statement, the lost-commit lookup, a pooled
        // connection); the answers must come within twice the socket timeout, plus what two busy cores add.
        long hangMillis = 4 * socketTimeoutMillis();
        long answerBoundMillis = 2 * socketTimeoutMillis() + 4_000;
        int[] readyWhileHung = new int[2];
        FaultySale.Result result = FaultySale.sell(sku, stock, Lane.size(450, 1500), () -> {
            long hungAt = System.currentTimeMillis();
            FaultyMySqlResource.proxy().freeze();
            try {
                Thread.sleep(4_000);
                readyWhileHung[0] = readiness();
                Thread.sleep(Math.max(0, hungAt + hangMillis - System.currentTimeMillis()));
            } finally {
                FaultyMySqlResource.proxy().unfreeze();
            }
            readyWhileHung[1] = awaitReadiness(200, Duration.ofSeconds(15));
        });
        System.out.printf("[fault] %s MySQL hung %d ms: %s, slowest %d ms, readiness %d while hung%n",
                getClass().getSimpleName(), hangMillis, result.statuses(), result.slowestMillis(), readyWhileHung[0]);
        assertEquals(readinessFollowsMySql() ? 503 : 200, readyWhileHung[0], "readiness while MySQL hangs");
        assertEquals(200, readyWhileHung[1], "readiness once MySQL answers again");
        assertTrue(result.slowestMillis() <= answerBoundMillis, "slowest answer " + result.slowestMillis()
                + " ms while MySQL hung for " + hangMillis + " ms: " + result.statuses());
        FaultySale.verify(sku, stock, result);
        if (keepsHotStock()) {
            FaultySale.awaitHotStockAgrees(sku, () -> FaultySale.counters(redis.hash(String.class)
                    .hmget(RedisKeys.stock(sku), FaultySale.COUNTERS)));
        }
    }

    private static int readiness() {
        return Http.send(HttpRequest.newBuilder(Http.uri("/q/health/ready")).timeout(Duration.ofSeconds(10))
                .GET().build()).status();
    }

    private static int awaitReadiness(int wanted, Duration within) throws InterruptedException {
        long deadline = System.currentTimeMillis() + within.toMillis();
        int status = readiness();
        while (status != wanted && System.currentTimeMillis() < deadline) {
            Thread.sleep(250);
            status = readiness();
        }
        return status;
    }
}
