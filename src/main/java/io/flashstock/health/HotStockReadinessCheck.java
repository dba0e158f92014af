package io.flashstock.health;

import io.flashstock.item.StockMirror;
import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness ({@code redis-lua}): DOWN until the scripts are loaded into Redis and the hot-stock generation is known.
 * Items are warmed on demand, so readiness never waits for the catalog. Reads in-memory state only. UP, and not used,
 * where the strategy keeps no copy of the counters ({@link StockMirror.Readiness#NOT_USED}).
 */
@Readiness
@ApplicationScoped
public class HotStockReadinessCheck implements AsyncHealthCheck {

    private final StockMirror mirror;

    HotStockReadinessCheck(StockMirror mirror) {
        this.mirror = mirror;
    }

    @Override
    public Uni<HealthCheckResponse> call() {
        return Uni.createFrom().item(this::now);
    }

    private HealthCheckResponse now() {
        return switch (mirror.readiness()) {
            case NOT_USED -> HealthCheckResponse.named("hot-stock").up().withData("used", false).build();
            case READY -> HealthCheckResponse.named("hot-stock").status(true).build();
            case NOT_READY -> HealthCheckResponse.named("hot-stock").status(false).build();
        };
    }
}
