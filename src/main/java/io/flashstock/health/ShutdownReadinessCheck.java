package io.flashstock.health;

import io.quarkus.runtime.ShutdownDelayInitiatedEvent;
import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness DOWN from the moment the pod is asked to stop ({@code SIGTERM}: a rollout, a drain) while it still serves
 * for {@code quarkus.shutdown.delay}, so the Service stops routing to it before its HTTP server stops.
 *
 * <p>It replaces Quarkus's own graceful-shutdown check, turned off in {@code application.properties}: that one is a
 * plain health check, which SmallRye Health runs on a worker thread, so while every worker was busy in a sale the
 * whole readiness probe waited for one, missed the kubelet's timeout, and took a pod that was only busy out of the
 * Service. This one answers from a flag, on the event loop, as flashstock's other checks do.
 */
@Readiness
@ApplicationScoped
public class ShutdownReadinessCheck implements AsyncHealthCheck {

    private volatile boolean stopping;

    void onShutdownDelay(@Observes ShutdownDelayInitiatedEvent event) {
        stopping = true;
    }

    @Override
    public Uni<HealthCheckResponse> call() {
        return Uni.createFrom().item(() -> HealthCheckResponse.named("graceful-shutdown").status(!stopping).build());
    }
}
