package io.flashstock.faults;

import static io.flashstock.testsupport.Shop.newSku;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashstock.redis.RedisKeys;
import io.flashstock.testsupport.Lane;
import io.flashstock.testsupport.OwnRedis;
import io.flashstock.testsupport.OwnRedisCluster;
import io.flashstock.testsupport.OwnRedisClusterResource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * One master of a 3-master Redis Cluster ({@link OwnRedisClusterResource}) loses its data in the middle of a sale of an
 * item whose keys live on it: killed and started again empty, owning the same slots, while the other shards keep
 * theirs. The loss must be found for the items on that shard, whichever shard holds the global keys
 * ({@code fs:generation}, {@code fs:active}): the checks of {@link FaultySale#verify} hold (no 500, no invented order,
 * every 201 has its order, later buyers sell out exactly) and, for redis-lua, the item's hot counters come back equal
 * to MySQL's. Write-behind may lose the item's pending orders with the shard (at most {@code max-pending}), as with a
 * standalone Redis. One subclass per strategy that keeps state in Redis. CI runs them with no second test JVM beside
 * them ({@link Lane#ALONE_TAG}).
 */
@Tag(Lane.ALONE_TAG)
abstract class ShardLoss {

    private static final int STOCK = Lane.size(300, 1000);
    private static final int BUYERS = Lane.size(450, 1500);

    /** Whether the strategy keeps the item's counters in Redis (redis-lua). */
    boolean keepsHotStock() {
        return true;
    }

    /** Whether acknowledged orders may be lost with Redis's data (write-behind). */
    boolean losesPendingOrdersWithRedisData() {
        return false;
    }

    @Test
    void aShardWithoutTheGlobalKeysLosesItsData() throws Exception {
        OwnRedisCluster cluster = OwnRedisClusterResource.cluster();
        OwnRedis global = cluster.masterOf(RedisKeys.generation());
        String sku = skuOn(cluster, global, false);
        check(cluster, sku);
    }

    @Test
    void theShardHoldingTheGlobalKeysLosesItsData() throws Exception {
        OwnRedisCluster cluster = OwnRedisClusterResource.cluster();
        OwnRedis global = cluster.masterOf(RedisKeys.generation());
        String sku = skuOn(cluster, global, true);
        check(cluster, sku);
    }

    private void check(OwnRedisCluster cluster, String sku) throws Exception {
        OwnRedis shard = cluster.masterOf(RedisKeys.stock(sku));
        FaultySale.Result result = FaultySale.sell(sku, STOCK, BUYERS, () -> cluster.restartEmpty(shard));
        int lost = FaultySale.verify(sku, STOCK, result, losesPendingOrdersWithRedisData());
        System.out.printf("[fault] %s shard %d of 3 lost its data: %s, slowest %d ms, %d acknowledged orders lost%n",
                getClass().getSimpleName(), cluster.indexOf(shard), result.statuses(), result.slowestMillis(), lost);
        assertTrue(lost <= RedisFaults.MAX_PENDING, lost + " acknowledged orders lost, more than max-pending allows");
        if (keepsHotStock()) {
            FaultySale.awaitHotStockAgrees(sku, () -> cluster.masterOf(RedisKeys.stock(sku))
                    .hmget(RedisKeys.stock(sku), FaultySale.COUNTERS));
        }
    }

    /** A new sku whose keys live on {@code shard} ({@code same}) or on another master. */
    private static String skuOn(OwnRedisCluster cluster, OwnRedis shard, boolean same) {
        for (int i = 0; i < 1000; i++) {
            String sku = newSku("shard");
            OwnRedis owner = cluster.masterOf(RedisKeys.stock(sku));
            if ((owner == shard) == same) {
                return sku;
            }
        }
        throw new IllegalStateException("no sku found on the wanted shard");
    }
}
