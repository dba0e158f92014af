package io.flashstock.health;

import io.flashstock.deduction.ActiveStrategy;
import io.flashstock.redis.StrategyLease;
import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness: DOWN while this pod does not hold its strategy lease ({@link StrategyLease}): pods of the other strategy
 * family still serve (a rolling update between redis-lua and a MySQL strategy stalls here, with the reason in
 * {@code waitingFor}, instead of running both), write-behind orders are still pending in Redis, or a redis-lua pod
 * lost Redis. Reads in-memory state only.
 */
@Readiness
@ApplicationScoped
public class StrategyLeaseReadinessCheck implements AsyncHealthCheck {

    private final StrategyLease lease;
    private final ActiveStrategy strategy;

    StrategyLeaseReadinessCheck(StrategyLease lease, ActiveStrategy strategy) {
        this.lease = lease;
        this.strategy = strategy;
    }

    @Override
    public Uni<HealthCheckResponse> call() {
        return Uni.createFrom().item(this::now);
    }

    private HealthCheckResponse now() {
        HealthCheckResponseBuilder response = HealthCheckResponse.named("strategy-lease")
                .withData("strategy", strategy.name().configValue());
        String waitingFor = lease.waitingFor();
        if (waitingFor != null) {
            return response.down().withData("waitingFor", waitingFor).build();
        }
        return response.up().withData("confirmed", !lease.unconfirmed()).build();
    }
}
