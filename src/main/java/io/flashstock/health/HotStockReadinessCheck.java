package io.flashstock.health;

import io.flashstock.deduction.ActiveStrategy;
import io.flashstock.deduction.StrategyName;
import io.flashstock.deduction.lua.HotStockWarmer;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness ({@code redis-lua}): DOWN until the scripts are loaded and every item's hot stock is warm, and again
 * while the pod re-warms after Redis restarted or lost its data. Reads in-memory state only. UP for the other
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
        return HealthCheckResponse.named("hot-stock").status(warmer.isWarm()).build();
    }
}
