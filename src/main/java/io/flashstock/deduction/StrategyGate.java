package io.flashstock.deduction;

import java.util.Set;

import io.flashstock.error.UnavailableException;
import io.flashstock.redis.StrategyLease;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * The one place that refuses to change stock while this pod does not hold its {@link StrategyLease} (pods of the
 * other strategy family still serve, or a redis-lua pod lost Redis): every state-changing request (purchase, cart,
 * confirm, cancel, extend, restock, sale window, new item) answers 503 {@code unavailable} with Retry-After, and
 * nothing changes. Readiness is DOWN meanwhile, so only callers that bypass the Service get here. Reads are served.
 */
public class StrategyGate {

    private static final Set<String> READS = Set.of("GET", "HEAD", "OPTIONS");

    private final StrategyLease lease;

    StrategyGate(StrategyLease lease) {
        this.lease = lease;
    }

    /** After authentication and authorization: a caller without the right gets 401/403 as from a serving pod. */
    @ServerRequestFilter(priority = Priorities.USER)
    public void refuseChangesWithoutLease(ContainerRequestContext request) {
        if (!READS.contains(request.getMethod()) && !lease.held()) {
            throw new UnavailableException("This instance does not serve changes now: " + lease.waitingFor());
        }
    }
}
