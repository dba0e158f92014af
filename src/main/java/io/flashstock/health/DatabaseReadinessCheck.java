package io.flashstock.health;

import io.agroal.api.AgroalDataSource;
import io.flashstock.config.FlashstockConfig;
import io.flashstock.deduction.ActiveStrategy;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness: MySQL opens and validates a new connection within {@code flashstock.health.database-timeout}. Replaces
 * Quarkus's own datasource check ({@code quarkus.datasource.health.enabled=false}), which waits as long as the
 * JDBC socket timeout when MySQL accepts connections but never answers; here the probe answers DOWN in bounded
 * time and the validation goes on in the background, one at a time, so a hung MySQL does not pile up threads. The
 * connection is a new one, outside the pool: a pool whose connections are all busy in a sale is load, not an outage,
 * and must not take the pod out of the Service.
 *
 * <p>In {@code redis-lua} write-behind a purchase does not touch MySQL, so an unreachable MySQL is reported in the
 * check's data but keeps the pod ready: the pod goes on selling and its relay catches up once MySQL answers.
 */
@Readiness
@ApplicationScoped
public class DatabaseReadinessCheck implements HealthCheck {

    private final BoundedProbe probe;
    private final boolean neededForPurchases;

    DatabaseReadinessCheck(AgroalDataSource dataSource, FlashstockConfig config, ActiveStrategy strategy) {
        this.probe = new BoundedProbe("flashstock-db-readiness", config.health().databaseTimeout(),
                () -> dataSource.isHealthy(true));
        this.neededForPurchases = strategy.get().purchasesNeedDatabase();
    }

    @Override
    public HealthCheckResponse call() {
        return probe.check("database", neededForPurchases);
    }

    @PreDestroy
    void stop() {
        probe.close();
    }
}
