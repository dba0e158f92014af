package io.flashstock.redis;

import java.util.Set;
import java.util.stream.Collectors;

import io.quarkus.arc.Arc;
import io.quarkus.arc.InjectableBean;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;

/**
 * Notes, when the scheduler starts the jobs (its start observer's priority), whether the Redis data sources already
 * exist: {@link RedisClients} must have created them, as two threads creating them at once made one fail.
 */
@ApplicationScoped
public class RedisClientsAtStartup {

    /** The Redis data source types that had an instance when the scheduler started; null before the start. */
    static volatile Set<Class<?>> createdBeforeTheScheduler;

    void check(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) StartupEvent event) {
        Set<InjectableBean<?>> created = Arc.container().getActiveContext(ApplicationScoped.class).getState()
                .getContextualInstances().keySet();
        createdBeforeTheScheduler = created.stream().flatMap(bean -> bean.getTypes().stream())
                .filter(type -> type == RedisDataSource.class || type == ReactiveRedisDataSource.class)
                .map(type -> (Class<?>) type).collect(Collectors.toSet());
    }
}
