package io.flashstock.health;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.deduction.ActiveStrategy;
import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness: MySQL accepts a connection and validates it within {@code flashstock.health.database-timeout}. Replaces
 * Quarkus's own datasource check ({@code quarkus.datasource.health.enabled=false}), which waits as long as the JDBC
 * socket timeout when MySQL accepts connections but never answers; here the probe answers DOWN in bounded time and
 * goes on in the background, one at a time and at most once a second ({@link BoundedProbe}).
 *
 * <p>The connection is the probe's own, opened through the driver and closed at once, not one of the pool's: a pool
 * whose connections are all busy in a sale is load, not an outage, and must not take the pod out of the Service; and
 * asking the pool for a new connection would add one to it, past its maximum. A MySQL that refuses new connections
 * because it has too many (error 1040) answered: the pool's connections still work, so the pod stays ready.
 *
 * <p>In {@code redis-lua} write-behind a purchase does not touch MySQL, so an unreachable MySQL is reported in the
 * check's data but keeps the pod ready: the pod goes on selling and its relay catches up once MySQL answers.
 */
@Readiness
@ApplicationScoped
public class DatabaseReadinessCheck implements AsyncHealthCheck {

    /** MySQL's "Too many connections". */
    private static final int TOO_MANY_CONNECTIONS = 1040;

    private final BoundedProbe probe;
    private final boolean neededForPurchases;

    DatabaseReadinessCheck(FlashstockConfig config, ActiveStrategy strategy,
            @ConfigProperty(name = "quarkus.datasource.jdbc.url") String url,
            @ConfigProperty(name = "quarkus.datasource.username") Optional<String> username,
            @ConfigProperty(name = "quarkus.datasource.password") Optional<String> password) throws SQLException {
        Duration timeout = config.health().databaseTimeout();
        Properties properties = new Properties();
        username.ifPresent(user -> properties.setProperty("user", user));
        password.ifPresent(secret -> properties.setProperty("password", secret));
        properties.setProperty("connectTimeout", Long.toString(timeout.toMillis()));
        properties.setProperty("socketTimeout", Long.toString(timeout.toMillis()));
        Driver driver = new com.mysql.cj.jdbc.Driver();
        int validSeconds = (int) Math.max(1, timeout.toSeconds());
        this.probe = new BoundedProbe("flashstock-db-readiness", timeout,
                () -> answers(driver, url, properties, validSeconds));
        this.neededForPurchases = strategy.get().purchasesNeedDatabase();
    }

    @Override
    public Uni<HealthCheckResponse> call() {
        return probe.check("database", neededForPurchases);
    }

    private static boolean answers(Driver driver, String url, Properties properties, int validSeconds)
            throws SQLException {
        try (Connection connection = driver.connect(url, properties)) {
            return connection != null && connection.isValid(validSeconds);
        } catch (SQLException e) {
            if (e.getErrorCode() == TOO_MANY_CONNECTIONS) {
                return true;
            }
            throw e;
        }
    }

    @PreDestroy
    void stop() {
        probe.close();
    }
}
