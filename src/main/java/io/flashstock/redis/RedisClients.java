package io.flashstock.redis;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;

import io.quarkus.arc.ClientProxy;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.runtime.StartupEvent;

/**
 * Creates the Redis data sources on the main thread, before the scheduler starts the jobs.
 *
 * <p>Quarkus 3.34 creates each Redis bean lazily, at its first call, and keeps the clients behind them in plain static
 * hash maps. A job's first run (which uses the reactive data source, on a worker) and the strategy lease's first
 * claim (the blocking one, on the main thread) used to create them at the same moment; one of them then failed with a
 * {@code ConcurrentModificationException}: the lease's first claim counted as "Redis does not answer", and the sold-out
 * channel's first subscription timed out on a reply no one waited for. Created here, one after the other, they are
 * ready before anything else uses them.
 */
@ApplicationScoped
class RedisClients {

    /** Before the scheduler's own start (priority 0), which starts the jobs. */
    static final int BEFORE_THE_SCHEDULER = Interceptor.Priority.PLATFORM_BEFORE - 1;

    void create(@Observes @Priority(BEFORE_THE_SCHEDULER) StartupEvent event, RedisDataSource blocking,
            ReactiveRedisDataSource reactive) {
        ClientProxy.unwrap(blocking);
        ClientProxy.unwrap(reactive);
    }
}
