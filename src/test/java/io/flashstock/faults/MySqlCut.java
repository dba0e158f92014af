package io.flashstock.faults;

import static io.flashstock.testsupport.Shop.newSku;

import io.flashstock.redis.RedisKeys;
import io.flashstock.testsupport.FaultyMySqlResource;
import io.quarkus.redis.datasource.RedisDataSource;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * Every connection from the service to MySQL cut in the middle of a sale, right after the answers had been slowed
 * down so that statements MySQL ran, commits included, were still on their way back (NetCrusher between the service
 * and MySQL, {@link FaultyMySqlResource}): the "commit whose answer is lost" case. One subclass per strategy; the
 * checks are {@link FaultySale#verify}'s.
 */
abstract class MySqlCut {

    @Inject
    RedisDataSource redis;

    /** Whether the strategy keeps the item's counters in Redis (redis-lua): they must equal MySQL's afterwards. */
    boolean keepsHotStock() {
        return false;
    }

    @Test
    void aCutMidSaleNeverLosesNorInventsAnOrder() throws Exception {
        String sku = newSku("cut");
        int stock = 1000;
        FaultySale.Result result = FaultySale.sell(sku, stock, 1500, () -> {
            FaultyMySqlResource.delay(300);
            Thread.sleep(1_000);
            FaultyMySqlResource.proxy().close(); // every connection dropped, new ones refused for three seconds
            FaultyMySqlResource.delay(0);
            Thread.sleep(3_000);
            FaultyMySqlResource.proxy().open();
        });
        System.out.printf("[fault] %s MySQL cut: %s, slowest %d ms%n", getClass().getSimpleName(), result.statuses(),
                result.slowestMillis());
        FaultySale.verify(sku, stock, result);
        if (keepsHotStock()) {
            FaultySale.awaitHotStockAgrees(sku, () -> FaultySale.counters(redis.hash(String.class)
                    .hmget(RedisKeys.stock(sku), FaultySale.COUNTERS)));
        }
    }
}
