package io.flashstock.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.reflect.Proxy;
import java.net.ConnectException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.error.UnavailableException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.smallrye.mutiny.Uni;
import org.junit.jupiter.api.Test;

/**
 * {@code flashstock.rate-limit.on-redis-error} when Redis cannot be asked (every command fails as a refused
 * connection does): {@code refuse} answers 503 {@code unavailable} before any stock work, {@code allow} lets the
 * request go on and counts it in {@code flashstock.rate.unchecked}. Both ask Redis once per limit that is on.
 */
class RateLimiterRedisDownTest {

    private final AtomicInteger asked = new AtomicInteger();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void refuseAnswersUnavailable() {
        RateLimiter limiter = limiter(FlashstockConfig.OnRedisError.REFUSE);
        assertThrows(UnavailableException.class, () -> limiter.admit("u-1", null, 1));
        assertEquals(1, asked.get());
        assertEquals(0, registry.counter("flashstock.rate.unchecked").count());
    }

    @Test
    void allowLetsTheRequestGoOnAndCountsIt() {
        RateLimiter limiter = limiter(FlashstockConfig.OnRedisError.ALLOW);
        limiter.admit("u-1", "10.0.0.1", 2);
        assertEquals(2, asked.get(), "the user's limit, then the address's");
        assertEquals(2, registry.counter("flashstock.rate.unchecked").count());
    }

    private RateLimiter limiter(FlashstockConfig.OnRedisError onRedisError) {
        ReactiveRedisDataSource down = proxy(ReactiveRedisDataSource.class, (method, args) -> {
            if (method.equals("execute")) {
                asked.incrementAndGet();
                return Uni.createFrom().failure(new ConnectException("Connection refused"));
            }
            throw new UnsupportedOperationException(method);
        });
        FlashstockConfig.RateLimit limits = proxy(FlashstockConfig.RateLimit.class, (method, args) -> switch (method) {
            case "perUser", "perAddress" -> 10.0;
            case "perUserBurst", "perAddressBurst" -> 5;
            case "onRedisError" -> onRedisError;
            default -> throw new UnsupportedOperationException(method);
        });
        FlashstockConfig config = proxy(FlashstockConfig.class, (method, args) -> {
            if (method.equals("rateLimit")) {
                return limits;
            }
            throw new UnsupportedOperationException(method);
        });
        return new RateLimiter(down, Duration.ofSeconds(1), config, registry);
    }

    private interface Answer {
        Object answer(String method, Object[] args);
    }

    private static <T> T proxy(Class<T> type, Answer answer) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] { type },
                (self, method, args) -> answer.answer(method.getName(), args)));
    }
}
