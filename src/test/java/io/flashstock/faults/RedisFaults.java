package io.flashstock.faults;

import static io.flashstock.testsupport.Shop.newSku;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashstock.redis.RedisKeys;
import io.flashstock.testsupport.FaultyRedisResource;
import io.flashstock.testsupport.Lane;
import io.flashstock.testsupport.OwnRedisResource;
import org.junit.jupiter.api.Test;

/**
 * Redis misbehaves in the middle of a sale ({@link FaultyRedisResource}: a redis-server of the test class's own
 * behind a NetCrusher proxy, with the service's Redis timeout at 500 ms): slowed past the timeout, cut, flushed,
 * stripped of its scripts, restarted empty. After each, the checks of {@link FaultySale#verify} hold and, for the
 * strategies that keep hot stock in Redis, Redis's counters equal MySQL's within 30 s. Write-behind may lose
 * acknowledged orders that were still pending in Redis when Redis lost its data (the one documented exception); the
 * test prints how many. One subclass per strategy.
 */
abstract class RedisFaults {

    private static final int STOCK = Lane.size(300, 1000);
    private static final int BUYERS = Lane.size(450, 1500);

    /** Whether the strategy keeps the item's counters in Redis (redis-lua). */
    boolean keepsHotStock() {
        return false;
    }

    /**
     * Write-behind's bound on acknowledged orders lost per item with Redis's data: {@code flashstock.lua.max-pending},
     * the most orders of one item that may wait in Redis for MySQL, as the write-behind fault test sets it.
     */
    static final int MAX_PENDING = 200;

    /** Whether acknowledged orders may be lost with Redis's data (write-behind). */
    boolean losesPendingOrdersWithRedisData() {
        return false;
    }

    @Test
    void aSlowRedisNeverLosesNorInventsAnOrder() throws Exception {
        check("slow", false, () -> {
            FaultyRedisResource.proxy().delay(300); // each way: every call times out, while Redis runs it
            Thread.sleep(5_000);
            FaultyRedisResource.proxy().delay(0);
        });
    }

    @Test
    void aCutRedisNeverLosesNorInventsAnOrder() throws Exception {
        check("cut", false, () -> {
            FaultyRedisResource.proxy().crusher().close(); // every connection dropped, new ones refused
            Thread.sleep(3_000);
            FaultyRedisResource.proxy().crusher().open();
        });
    }

    @Test
    void aFlushedRedisNeverInventsAnOrder() throws Exception {
        check("flush", true, () -> OwnRedisResource.server().flushAll());
    }

    /**
     * Redis forgets the scripts but keeps the data (SCRIPT FLUSH; a failover to a replica that never ran them does
     * the same): every script call gets NOSCRIPT and must run its script again with EVAL, blocking and event-loop
     * callers alike. Nothing may be lost or invented.
     */
    @Test
    void aRedisThatForgotTheScriptsNeverLosesNorInventsAnOrder() throws Exception {
        check("script-flush", false, () -> {
            for (int i = 0; i < 5; i++) {
                OwnRedisResource.server().call("SCRIPT", "FLUSH");
                Thread.sleep(200);
            }
        });
    }

    @Test
    void aRedisRestartedEmptyNeverInventsAnOrder() throws Exception {
        check("restart", true, () -> OwnRedisResource.server().restart());
    }

    private void check(String fault, boolean losesData, FaultySale.Fault stage) throws Exception {
        String sku = newSku("redis-" + fault);
        FaultySale.Result result = FaultySale.sell(sku, STOCK, BUYERS, stage);
        int lost = FaultySale.verify(sku, STOCK, result, losesData && losesPendingOrdersWithRedisData());
        System.out.printf("[fault] %s Redis %s: %s, slowest %d ms, %d acknowledged orders lost%n",
                getClass().getSimpleName(), fault, result.statuses(), result.slowestMillis(), lost);
        assertTrue(lost <= MAX_PENDING, lost + " acknowledged orders lost, more than max-pending allows");
        if (keepsHotStock()) {
            FaultySale.awaitHotStockAgrees(sku,
                    () -> OwnRedisResource.server().hmget(RedisKeys.stock(sku), FaultySale.COUNTERS));
        }
    }
}
