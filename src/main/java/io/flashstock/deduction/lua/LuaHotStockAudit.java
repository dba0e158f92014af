package io.flashstock.deduction.lua;

import java.util.List;
import java.util.Optional;

import io.flashstock.deduction.HotStockAudit;
import io.flashstock.deduction.HotStockCounts;
import io.flashstock.error.UnavailableException;
import io.flashstock.redis.RedisKeys;
import io.quarkus.redis.datasource.RedisDataSource;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;

/**
 * The {@link HotStockAudit} of {@code redis-lua}: the item's hot stock counters and its stream of orders not yet in
 * MySQL, read by one script ({@code lua/report.lua}), so that a purchase or a relay's settle never falls between
 * the two reads. Chosen only when redis-lua is the strategy ({@link RedisLuaStrategy#hotStockAudit()}); not a
 * {@link HotStockAudit} bean by itself.
 */
@ApplicationScoped
@Typed(LuaHotStockAudit.class)
public class LuaHotStockAudit implements HotStockAudit {

    private final RedisDataSource redis;
    private final HotStockScripts scripts;
    private final HotStock hotStock;

    LuaHotStockAudit(RedisDataSource redis, HotStockScripts scripts, HotStock hotStock) {
        this.redis = redis;
        this.scripts = scripts;
        this.hotStock = hotStock;
    }

    @Override
    public Optional<HotStockCounts> read(String sku) {
        Response reply = UnavailableException.unlessFailing("The hot stock cannot be read now; try again.",
                () -> scripts.report.run(redis, List.of(RedisKeys.stock(sku), RedisKeys.orders(sku)), List.of()));
        if (reply.get(0).toLong() == 0) {
            return Optional.of(HotStockCounts.cold());
        }
        return Optional.of(new HotStockCounts(true, hotStock.isCurrent(reply.get(5).toString()), reply.get(1).toLong(),
                reply.get(2).toLong(), reply.get(3).toLong(), reply.get(4).toLong(), reply.get(6).toLong(),
                reply.get(7).toLong()));
    }
}
