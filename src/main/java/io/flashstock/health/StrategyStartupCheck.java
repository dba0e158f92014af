package io.flashstock.health;

import io.flashstock.deduction.ActiveStrategy;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Startup;

/**
 * Startup probe: UP once the configured deduction strategy was resolved (Flyway has migrated by then).
 * An invalid strategy stops the application before this can answer.
 */
@Startup
@ApplicationScoped
public class StrategyStartupCheck implements HealthCheck {

    private final ActiveStrategy strategy;

    StrategyStartupCheck(ActiveStrategy strategy) {
        this.strategy = strategy;
    }

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("deduction-strategy").up()
                .withData("strategy", strategy.name().configValue()).build();
    }
}
