package io.flashstock.health;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.deduction.ActiveStrategy;
import io.quarkus.redis.datasource.RedisDataSource;
import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness: Redis answers {@code PING} within {@code flashstock.health.redis-timeout}. Replaces Quarkus's own Redis
 * check ({@code quarkus.redis.health.enabled=false}), which made every pod unready while Redis was away, db-optimistic
 * ones included, although they decide purchases in MySQL alone: a Redis outage took the whole Service down. Here
 * Redis is required only where purchases need it (redis-lua, redis-lock); elsewhere it is reported in the check's
 * data and the pod stays ready.
 */
@Readiness
@ApplicationScoped
public class RedisReadinessCheck implements AsyncHealthCheck {

    private final BoundedProbe probe;
    private final boolean neededForPurchases;

    RedisReadinessCheck(RedisDataSource redis, FlashstockConfig config, ActiveStrategy strategy) {
        this.probe = new BoundedProbe("flashstock-redis-readiness", config.health().redisTimeout(),
                () -> "PONG".equals(redis.execute("PING").toString()));
        this.neededForPurchases = strategy.get().purchasesNeedRedis();
    }

    @Override
    public Uni<HealthCheckResponse> call() {
        return probe.check("redis", neededForPurchases);
    }

    @PreDestroy
    void stop() {
        probe.close();
    }
}
