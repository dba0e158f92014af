package io.flashstock.health;

import io.flashstock.redis.HotStock;
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

    private final HotStock hotStock;

    HotStockReadinessCheck(HotStock hotStock) {
        this.hotStock = hotStock;
    }

    @Override
    public HealthCheckResponse call() {
        if (!hotStock.active()) {
            return HealthCheckResponse.named("hot-stock").up().withData("used", false).build();
        }
        return HealthCheckResponse.named("hot-stock").status(hotStock.isWarm()).build();
    }
}
