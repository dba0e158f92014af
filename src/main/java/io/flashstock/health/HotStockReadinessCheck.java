package io.flashstock.health;

import io.flashstock.deduction.ActiveStrategy;
import io.flashstock.deduction.StrategyName;
import io.flashstock.deduction.lua.HotStockWarmer;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness ({@code redis-lua}): DOWN until the scripts are loaded into Redis and the hot-stock generation is known.
 * Items are warmed on demand, so readiness never waits for the catalog. Reads in-memory state only. UP for the other
 * strategies.
 */
@Readiness
@ApplicationScoped
public class HotStockReadinessCheck implements HealthCheck {

    private final HotStockWarmer warmer;
    private final ActiveStrategy strategy;

    HotStockReadinessCheck(HotStockWarmer warmer, ActiveStrategy strategy) {
        this.warmer = warmer;
        this.strategy = strategy;
    }

    @Override
    public HealthCheckResponse call() {
        if (!strategy.is(StrategyName.REDIS_LUA)) {
            return HealthCheckResponse.named("hot-stock").up().withData("used", false).build();
        }
        return HealthCheckResponse.named("hot-stock").status(warmer.isReady()).build();
    }
}
