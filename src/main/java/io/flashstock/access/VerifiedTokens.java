package io.flashstock.access;

import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Clock;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

import javax.crypto.SecretKey;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.flashstock.config.FlashstockConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.cache.CaffeineCacheMetrics;
import io.smallrye.jwt.auth.principal.DefaultJWTParser;
import io.smallrye.jwt.auth.principal.JWTAuthContextInfo;
import io.smallrye.jwt.auth.principal.JWTParser;
import io.smallrye.jwt.auth.principal.ParseException;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.jwt.Claims;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * The bearer-token parser Quarkus's JWT validator uses, remembering the tokens it has verified: a token seen again
 * (the same string, so the same signature and claims) is not verified again until its {@code exp} or
 * {@code flashstock.tokens.cache-ttl}, whichever comes first. Verifying an RS256 token (the signature, then the
 * claims' JSON) took about a quarter of the service's CPU in a hot sale; a shop's backend sends one token for every
 * purchase it forwards.
 *
 * <p>Verification is smallrye-jwt's (signature, {@code iss}, {@code aud} against {@code mp.jwt.verify.audiences},
 * {@code exp} with {@code mp.jwt.verify.clock.skew}, the required claims), then this class's own lifetime check,
 * the one place it is done: the token must carry {@code iat} and {@code exp}, live no longer than
 * {@code flashstock.tokens.max-age} ({@code exp - iat}), and not be issued further in the future than the clock
 * skew. So no token the service accepts is valid for longer than max-age plus the skew from now.
 *
 * <p>The cache is bounded ({@code flashstock.tokens.cache-size}) and Caffeine's: W-TinyLFU admits a newcomer over an
 * entry only if it was seen more often, so a storm of one-off tokens (a crowd of buyers, a token-stuffing attacker)
 * does not push out the shop backends' tokens in steady use, and nothing is cleared wholesale.
 *
 * <p>Only verified tokens are remembered, under their whole string, so a token that differs in any byte (another
 * signature, a changed claim) is verified from scratch, and a refused one is refused again every time. Every other
 * way of parsing goes straight to smallrye-jwt's own parser (both {@code parse} methods with the lifetime check).
 *
 * <p>The cache reports to Micrometer as {@value #METRICS_NAME} (tag {@code cache}): {@code cache_gets_total} with
 * {@code result} hit or miss (a miss is a verification), {@code cache_puts_total}, {@code cache_evictions_total}
 * and {@code cache_size}, so an operator (and bench/run.sh's token storm) can see whether tokens in steady use
 * stay cached.
 */
@Alternative
@Priority(1)
@ApplicationScoped
public class VerifiedTokens implements JWTParser {

    /** The {@code cache} tag of the cache's meters. */
    static final String METRICS_NAME = "flashstock.tokens.cache";

    private record Verified(JsonWebToken token, long untilMillis) {
    }

    private final DefaultJWTParser verifier;
    private final long ttlMillis;
    private final long maxAgeSeconds;
    private final long skewSeconds;
    private final Clock clock;
    /** null: cache-size 0, every request verified. */
    private final Cache<String, Verified> verified;

    @Inject
    VerifiedTokens(DefaultJWTParser verifier, FlashstockConfig config,
            @ConfigProperty(name = "mp.jwt.verify.clock.skew", defaultValue = "60") int skewSeconds,
            MeterRegistry registry) {
        this(verifier, config.tokens().cacheSize(), config.tokens().cacheTtl().toMillis(),
                config.tokens().maxAge().toSeconds(), skewSeconds, Clock.systemUTC(), ForkJoinPool.commonPool());
        monitor(registry);
    }

    /** {@code executor} runs the cache's upkeep (tests pass {@code Runnable::run} to make it deterministic). */
    VerifiedTokens(DefaultJWTParser verifier, int capacity, long ttlMillis, long maxAgeSeconds, long skewSeconds,
            Clock clock, Executor executor) {
        this.verifier = verifier;
        this.ttlMillis = ttlMillis;
        this.maxAgeSeconds = maxAgeSeconds;
        this.skewSeconds = Math.max(0, skewSeconds);
        this.clock = clock;
        this.verified = capacity <= 0 ? null
                : Caffeine.newBuilder().maximumSize(capacity).executor(executor).recordStats()
                        .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clock.millis()))
                        .expireAfter(new UntilExpiry()).build();
    }

    /** Registers the cache's meters (see the class comment); none while the cache is off (cache-size 0). */
    void monitor(MeterRegistry registry) {
        if (verified != null) {
            CaffeineCacheMetrics.monitor(registry, verified, METRICS_NAME);
        }
    }

    /** Each entry lives until its own {@code untilMillis}: the token's exp or the cache TTL, whichever first. */
    private static final class UntilExpiry implements Expiry<String, Verified> {
        @Override
        public long expireAfterCreate(String token, Verified entry, long currentTime) {
            return Math.max(0, TimeUnit.MILLISECONDS.toNanos(entry.untilMillis()) - currentTime);
        }

        @Override
        public long expireAfterUpdate(String token, Verified entry, long currentTime, long currentDuration) {
            return expireAfterCreate(token, entry, currentTime);
        }

        @Override
        public long expireAfterRead(String token, Verified entry, long currentTime, long currentDuration) {
            return currentDuration;
        }
    }

    @Override
    public JsonWebToken parse(String token) throws ParseException {
        if (verified == null) {
            return checkLifetime(verifier.parse(token), clock.millis());
        }
        long now = clock.millis();
        Verified known = verified.getIfPresent(token);
        if (known != null && now < known.untilMillis()) {
            return known.token();
        }
        if (known != null) {
            verified.asMap().remove(token, known);
        }
        // throws for a token that does not verify: never remembered
        JsonWebToken fresh = checkLifetime(verifier.parse(token), now);
        remember(token, fresh, now);
        return fresh;
    }

    private void remember(String token, JsonWebToken fresh, long now) {
        long expiresMillis = fresh.getExpirationTime() * 1000;
        long until = Math.min(now + ttlMillis, expiresMillis > 0 ? expiresMillis : now);
        if (until <= now) {
            return;
        }
        verified.put(token, new Verified(fresh, until)); // over cache-size, W-TinyLFU picks what goes
    }

    /**
     * The lifetime rules smallrye-jwt does not apply by itself: {@code iat} and {@code exp} present, {@code exp - iat}
     * at most max-age, {@code iat} not beyond the clock skew in the future. The messages stay in the log; the client
     * sees 401 {@code unauthenticated} as for any refused token.
     */
    JsonWebToken checkLifetime(JsonWebToken token, long nowMillis) throws ParseException {
        Long issuedAt = seconds(token, Claims.iat);
        Long expires = seconds(token, Claims.exp);
        if (issuedAt == null) {
            throw new ParseException("The token carries no iat (issued-at) claim");
        }
        if (expires == null) {
            throw new ParseException("The token carries no exp (expiry) claim");
        }
        if (expires - issuedAt > maxAgeSeconds) {
            throw new ParseException("The token lives " + (expires - issuedAt) + " s (exp - iat), longer than "
                    + "flashstock.tokens.max-age (" + maxAgeSeconds + " s)");
        }
        if (issuedAt > Math.floorDiv(nowMillis, 1000) + skewSeconds) {
            throw new ParseException("The token is issued in the future (iat " + issuedAt + "), beyond the clock skew"
                    + " of " + skewSeconds + " s");
        }
        return token;
    }

    private static Long seconds(JsonWebToken token, Claims claim) {
        Object value = token.getClaim(claim.name());
        if (value instanceof Number number) {
            return number.longValue();
        }
        if (value instanceof jakarta.json.JsonNumber number) {
            return number.longValue();
        }
        return null;
    }

    /** How many verified tokens are remembered now (tests). */
    int size() {
        if (verified == null) {
            return 0;
        }
        verified.cleanUp();
        return (int) verified.estimatedSize();
    }

    @Override
    public JsonWebToken parse(String token, JWTAuthContextInfo context) throws ParseException {
        return checkLifetime(verifier.parse(token, context), clock.millis());
    }

    @Override
    public JsonWebToken verify(String token, PublicKey key) throws ParseException {
        return verifier.verify(token, key);
    }

    @Override
    public JsonWebToken verify(String token, SecretKey key) throws ParseException {
        return verifier.verify(token, key);
    }

    @Override
    public JsonWebToken verify(String token, String secret) throws ParseException {
        return verifier.verify(token, secret);
    }

    @Override
    public JsonWebToken decrypt(String token, PrivateKey key) throws ParseException {
        return verifier.decrypt(token, key);
    }

    @Override
    public JsonWebToken decrypt(String token, SecretKey key) throws ParseException {
        return verifier.decrypt(token, key);
    }

    @Override
    public JsonWebToken decrypt(String token, String secret) throws ParseException {
        return verifier.decrypt(token, secret);
    }

    @Override
    public JsonWebToken parseOnly(String token) throws ParseException {
        return verifier.parseOnly(token);
    }
}
