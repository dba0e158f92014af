package io.flashstock.health;

import io.flashstock.events.EventPublisher;
import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness data of the sale events: always UP, since the sale never waits for the broker (a broker that is down
 * only grows the backlog, and taking pods out of service for it would stop the sale too). Shows whether this pod
 * publishes, the backlog and the lag as last measured (every 5 s), and whether the backlog is over
 * {@code flashstock.events.max-backlog}. Reads in-memory state only.
 */
@Readiness
@ApplicationScoped
public class EventsReadinessCheck implements AsyncHealthCheck {

    private final EventPublisher publisher;

    EventsReadinessCheck(EventPublisher publisher) {
        this.publisher = publisher;
    }

    @Override
    public Uni<HealthCheckResponse> call() {
        return Uni.createFrom().item(this::now);
    }

    private HealthCheckResponse now() {
        EventPublisher.Status status = publisher.status();
        return HealthCheckResponse.named("sale-events").up().withData("publishing", status.publishing())
                .withData("backlog", status.backlog()).withData("lagSeconds", status.lagSeconds())
                .withData("overMaxBacklog", status.overMaxBacklog()).build();
    }
}
