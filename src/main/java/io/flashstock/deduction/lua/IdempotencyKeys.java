package io.flashstock.deduction.lua;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.order.CallerKey;
import io.flashstock.order.PurchaseOrder;
import io.flashstock.redis.RedisKeys;
import io.flashstock.support.Timestamps;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.redis.datasource.RedisDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * What Redis remembers of an item's Idempotency-Keys ({@code redis-lua}), each its user's:
 * {@link RedisKeys#idempotency} → {@code "orderId fingerprint createdAt expiresAt"} for
 * {@code flashstock.lua.idempotency-ttl}, written by the purchase script and put back from MySQL, which keeps every
 * key for good, when Redis no longer has it:
 * <ul>
 * <li>a warm-up puts back the keys of the item's orders still within the TTL ({@link #restore(String, Map)});</li>
 * <li>an order that repeated a key MySQL holds (Redis had lost or expired it, so the script took the retry for a new
 * purchase) is taken back, and the key then answers MySQL's order ({@link #rememberOwner}): the next retry is a
 * replay of that order, not one more new purchase to take back.</li>
 * </ul>
 * Both through {@code lua/restore_keys.lua}: a key Redis knows again meanwhile is left as it is.
 */
@ApplicationScoped
public class IdempotencyKeys {

    private static final Logger LOG = Logger.getLogger(IdempotencyKeys.class);
    /** Most keys put back by one script call: no call blocks Redis for long. */
    static final int CHUNK = 500;

    /** A key's value in Redis and the seconds it has left. */
    record Remembered(String value, long ttlSeconds) {

        /**
         * The key of {@code orderId}, made at {@code createdAt}: remembered for what its TTL has left at {@code now},
         * rounded up to a whole second, or, once it has run out, for a whole TTL again (a client retries it now).
         */
        static Remembered of(String orderId, String fingerprint, Instant createdAt, Instant expiresAt, Duration ttl,
                Instant now) {
            long leftMillis = Duration.between(now, createdAt.plus(ttl)).toMillis();
            long seconds = leftMillis > 0 ? (leftMillis + 999) / 1000 : Math.max(1, ttl.toSeconds());
            return new Remembered(orderId + " " + fingerprint + " " + createdAt.getEpochSecond() + " "
                    + expiresAt.getEpochSecond(), seconds);
        }
    }

    private final RedisDataSource redis;
    private final HotStockScripts scripts;
    private final Duration ttl;

    IdempotencyKeys(RedisDataSource redis, HotStockScripts scripts, FlashstockConfig config) {
        this.redis = redis;
        this.scripts = scripts;
        this.ttl = config.lua().idempotencyTtl();
    }

    /** Puts the item's keys ({@code user's key → value}) back where Redis has none, {@value #CHUNK} to a call. */
    void restore(String sku, Map<CallerKey, Remembered> keys) {
        List<String> names = new ArrayList<>();
        List<String> args = new ArrayList<>();
        for (Map.Entry<CallerKey, Remembered> key : keys.entrySet()) {
            names.add(RedisKeys.idempotency(sku, key.getKey().userId(), key.getKey().key()));
            args.add(key.getValue().value());
            args.add(Long.toString(key.getValue().ttlSeconds()));
            if (names.size() == CHUNK) {
                scripts.restoreKeys.run(redis, names, args);
                names.clear();
                args.clear();
            }
        }
        if (!names.isEmpty()) {
            scripts.restoreKeys.run(redis, names, args);
        }
    }

    /**
     * After {@code duplicate} was taken back because MySQL holds another order of its user with its Idempotency-Key:
     * Redis answers the user's key with that order from now on. Best effort: if MySQL or Redis fails here, the next
     * duplicate tries again.
     */
    void rememberOwner(PendingOrder duplicate) {
        String key = duplicate.idempotencyKey();
        if (key == null) {
            return;
        }
        try {
            PurchaseOrder owner = QuarkusTransaction.requiringNew()
                    .call(() -> PurchaseOrder.findByIdempotencyKey(duplicate.sku(), duplicate.userId(), key));
            if (owner != null) {
                restore(duplicate.sku(), Map.of(new CallerKey(owner.userId, key), Remembered.of(owner.id,
                        owner.requestFingerprint, owner.createdAt, owner.expiresAt, ttl, Timestamps.now())));
            }
        } catch (RuntimeException e) {
            LOG.debugf("Could not put back Idempotency-Key %s of %s: %s", key, duplicate.sku(), e.toString());
        }
    }
}
