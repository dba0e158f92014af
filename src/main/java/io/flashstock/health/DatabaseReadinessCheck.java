package io.flashstock.health;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.agroal.api.AgroalDataSource;
import io.flashstock.config.FlashstockConfig;
import io.flashstock.deduction.ActiveStrategy;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness: MySQL validates a pooled connection within {@code flashstock.health.database-timeout}. Replaces
 * Quarkus's own datasource check ({@code quarkus.datasource.health.enabled=false}), which waits as long as the
 * JDBC socket timeout when MySQL accepts connections but never answers; here the probe answers DOWN in bounded
 * time and the validation goes on in the background, one at a time, so a hung MySQL does not pile up threads.
 *
 * <p>In {@code redis-lua} write-behind a purchase does not touch MySQL, so an unreachable MySQL is reported in the
 * check's data but keeps the pod ready: the pod goes on selling and its relay catches up once MySQL answers.
 */
@Readiness
@ApplicationScoped
public class DatabaseReadinessCheck implements HealthCheck {

    private final AgroalDataSource dataSource;
    private final Duration timeout;
    private final boolean neededForPurchases;
    private final ExecutorService validator = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "flashstock-db-readiness");
        thread.setDaemon(true);
        return thread;
    });
    private CompletableFuture<Boolean> validation = CompletableFuture.completedFuture(true);

    DatabaseReadinessCheck(AgroalDataSource dataSource, FlashstockConfig config, ActiveStrategy strategy) {
        this.dataSource = dataSource;
        this.timeout = config.health().databaseTimeout();
        this.neededForPurchases = strategy.get().purchasesNeedDatabase();
    }

    @Override
    public HealthCheckResponse call() {
        String problem = validate();
        HealthCheckResponseBuilder response = HealthCheckResponse.named("database")
                .status(problem == null || !neededForPurchases)
                .withData("reachable", problem == null)
                .withData("neededForPurchases", neededForPurchases);
        return (problem == null ? response : response.withData("problem", problem)).build();
    }

    /** Null when MySQL validated a connection in time, else what went wrong (no host names, no SQL). */
    private String validate() {
        CompletableFuture<Boolean> current = current();
        try {
            return current.get(timeout.toMillis(), TimeUnit.MILLISECONDS) ? null : "validation failed";
        } catch (TimeoutException e) {
            return "no answer within " + timeout.toMillis() + " ms";
        } catch (ExecutionException e) {
            return "cannot connect";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    /** The validation under way, or a new one once the last has finished: never more than one at a time. */
    private synchronized CompletableFuture<Boolean> current() {
        if (validation.isDone()) {
            validation = CompletableFuture.supplyAsync(this::healthy, validator);
        }
        return validation;
    }

    private boolean healthy() {
        try {
            return dataSource.isHealthy(false);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @PreDestroy
    void stop() {
        validator.shutdownNow();
    }
}
