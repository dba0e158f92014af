package io.flashstock.redis;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.UnavailableException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Response;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Purchase rate limits per user and per client address ({@code flashstock.rate-limit.*}), shared by every pod: one
 * {@code lua/rate_limit.lua} call (GCRA on Redis's clock) per limit that is on. The per-user limit counts units (a
 * purchase's quantity, a cart's units summed, an extension as one), the per-address limit requests. Over a limit → 429
 * {@code too-many-requests} with Retry-After, before any stock work. Redis unreachable → as
 * {@code flashstock.rate-limit.on-redis-error} says: {@code allow} (the default) lets the request go on unchecked
 * (counted in {@code flashstock.rate.unchecked}), {@code refuse} answers 503 {@code unavailable}.
 */
@Singleton
public class RateLimiter {

    private static final Logger LOG = Logger.getLogger(RateLimiter.class);

    /** One limit: its key kind, how the problem names who is limited, its pace and burst. */
    private record Limit(String kind, String who, long intervalMillis, int burst, Counter refused) {
        boolean on() {
            return intervalMillis > 0;
        }
    }

    private final ReactiveRedisDataSource redis;
    /** How long a limit's script call waits for Redis: the blocking client's timeout. */
    private final Duration timeout;
    private final LuaScript script = LuaScript.load("rate_limit");
    private final Limit perUser;
    private final Limit perAddress;
    private final Counter unchecked;
    private final boolean refuseUnchecked;
    /** Both limits off: nothing is ever asked of Redis. */
    private final boolean off;

    RateLimiter(ReactiveRedisDataSource redis, @ConfigProperty(name = "quarkus.redis.timeout") Duration timeout,
            FlashstockConfig config, MeterRegistry registry) {
        this.redis = redis;
        this.timeout = timeout;
        FlashstockConfig.RateLimit settings = config.rateLimit();
        this.perUser = limit("user", "this user", settings.perUser(), settings.perUserBurst(), registry);
        this.perAddress = limit("address", "this client address", settings.perAddress(), settings.perAddressBurst(),
                registry);
        this.unchecked = Counter.builder("flashstock.rate.unchecked")
                .description("Purchases let through unchecked because Redis could not be asked").register(registry);
        this.refuseUnchecked = settings.onRedisError() == FlashstockConfig.OnRedisError.REFUSE;
        this.off = !perUser.on() && !perAddress.on();
    }

    private static Limit limit(String kind, String who, double perSecond, int burst, MeterRegistry registry) {
        long interval = perSecond <= 0 ? 0 : Math.max(1, Math.round(1000 / perSecond));
        return new Limit(kind, who, interval, Math.max(1, burst), Counter.builder("flashstock.rate.limited")
                .description("Purchases refused with 429 too-many-requests").tag("limit", kind).register(registry));
    }

    /**
     * Counts one request of {@code units} units against the user's limit and, with a {@code clientAddress}, one against
     * the address's. Blocks: for callers on a worker thread.
     *
     * @throws FlashstockException too-many-requests when either is over its limit
     */
    public void admit(String userId, String clientAddress, int units) {
        admitAsync(userId, clientAddress, units).await().indefinitely();
    }

    /**
     * {@link #admitAsync} and then {@code next}, subscribed once admitted; with both limits off, {@code next} itself,
     * with no operator around it (each Mutiny operator's callback costs a context capture and restore per purchase).
     */
    public <T> Uni<T> admitted(String userId, String clientAddress, int units, Supplier<Uni<T>> next) {
        if (off) {
            return next.get();
        }
        return admitAsync(userId, clientAddress, units).chain(() -> next.get());
    }

    /**
     * {@link #admit} without blocking: completes when the request may go on, fails with too-many-requests when either
     * limit is reached. Nothing is asked of Redis while both limits are off.
     */
    public Uni<Void> admitAsync(String userId, String clientAddress, int units) {
        Uni<Void> user = check(perUser, userId, Math.max(1, units));
        return clientAddress == null ? user : user.chain(() -> check(perAddress, clientAddress, 1));
    }

    private Uni<Void> check(Limit limit, String who, int cost) {
        if (!limit.on()) {
            return Uni.createFrom().voidItem();
        }
        return script.runAsync(redis, List.of(RedisKeys.rate(limit.kind(), who)),
                List.of(Long.toString(limit.intervalMillis()), Integer.toString(limit.burst()), Integer.toString(cost)),
                timeout)
                .onFailure().recoverWithUni(failure -> notChecked(limit, failure))
                .onItem().transform(reply -> {
                    if (reply != null && reply.get(0).toInteger() == 0) {
                        limit.refused().increment();
                        long waitMillis = reply.get(1).toLong();
                        throw FlashstockException.tooManyRequests(limit.who(), Math.max(1, (waitMillis + 999) / 1000));
                    }
                    return null;
                });
    }

    /**
     * Redis could not be asked: a failure of its own (503 {@code unavailable}) under {@code refuse}, else no reply (the
     * request goes on, counted). A failure is returned, not thrown from a transform of the failed call: Mutiny
     * would wrap both in a CompositeException, which no mapper knows (a 500).
     */
    private Uni<Response> notChecked(Limit limit, Throwable failure) {
        if (refuseUnchecked) {
            return Uni.createFrom().failure(new UnavailableException("The rate limit cannot be checked now; nothing "
                    + "was changed, try again.", failure));
        }
        unchecked.increment();
        LOG.debugf("Rate limit %s not checked: %s", limit.kind(), failure.toString());
        return Uni.createFrom().nullItem();
    }
}
