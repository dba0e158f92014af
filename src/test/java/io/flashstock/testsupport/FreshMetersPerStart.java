package io.flashstock.testsupport;

import java.util.List;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.quarkus.runtime.ShutdownEvent;

/**
 * Empties Micrometer's global registry when a {@code @QuarkusTest} application stops, so that the next one in the same
 * JVM (another test profile) registers its own meters.
 * <p>
 * Quarkus does this itself at a stop in dev mode only. In test mode the global composite registry keeps every meter
 * across restarts, and a gauge registered again under the same name and tags comes back as the stopped application's,
 * bound to that application's objects: it shows their last values, or, once they are collected, nothing at all. That
 * made {@code MetricsTableTest} miss gauges (the events backlog, the relay's pending count, the lease) whenever another
 * profile's application had run before it in the same fork. A packaged service runs one application per JVM and never
 * sees this.
 * <p>
 * It observes last ({@link Priority}), after the observers that stop the scheduler and the relays, so that nothing of
 * the stopping application registers a meter after the registry was emptied. A gauge left over like that binds the
 * next application's registry to a collected object, and Micrometer's composite then does not add it to the next
 * registry at all (CI once missed {@code flashstock_orders_expiry_stuck} that way; the beans whose rounds register
 * meters are now created at startup too).
 */
@ApplicationScoped
class FreshMetersPerStart {

    void clear(@Observes @Priority(Integer.MAX_VALUE) ShutdownEvent event) {
        CompositeMeterRegistry global = Metrics.globalRegistry;
        for (Meter meter : List.copyOf(global.getMeters())) {
            global.remove(meter);
        }
    }
}
