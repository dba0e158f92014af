package io.flashstock.health;

import java.time.Duration;
import java.time.Instant;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.order.ReservationExpiryJob;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;

/**
 * Liveness: DOWN only when this pod's own reservation-expiry job has stopped starting (a stuck scheduler
 * thread), which a restart cures. Reads in-memory state only: no database, no Redis, no HTTP call, so an
 * outage of a dependency never makes the orchestrator restart healthy pods. Answered on the event loop (an
 * {@link AsyncHealthCheck}): a plain check would wait for a worker thread, and in a sale every worker may be busy
 * with purchases, so a pod that is only saturated would fail its probe and be restarted.
 */
@Liveness
@ApplicationScoped
public class ExpiryJobLivenessCheck implements AsyncHealthCheck {

    private final ReservationExpiryJob job;
    private final boolean enabled;
    private final Duration allowedSilence;
    private final Instant createdAt = Instant.now();

    ExpiryJobLivenessCheck(ReservationExpiryJob job, FlashstockConfig config) {
        this.job = job;
        this.enabled = config.expiry().enabled();
        Duration interval = DurationConverter.parseDuration(config.expiry().interval());
        this.allowedSilence = max(interval.multipliedBy(20), Duration.ofMinutes(2));
    }

    @Override
    public Uni<HealthCheckResponse> call() {
        return Uni.createFrom().item(this::now);
    }

    private HealthCheckResponse now() {
        if (!enabled) {
            return HealthCheckResponse.named("reservation-expiry").up().withData("enabled", false).build();
        }
        Instant last = job.lastRun();
        Instant reference = last == null ? createdAt : last;
        boolean alive = Duration.between(reference, Instant.now()).compareTo(allowedSilence) <= 0;
        return HealthCheckResponse.named("reservation-expiry").status(alive)
                .withData("lastRun", last == null ? "never" : last.toString()).build();
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
