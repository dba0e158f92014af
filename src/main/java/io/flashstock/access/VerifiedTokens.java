package io.flashstock.access;

import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import javax.crypto.SecretKey;

import io.flashstock.config.FlashstockConfig;
import io.smallrye.jwt.auth.principal.DefaultJWTParser;
import io.smallrye.jwt.auth.principal.JWTAuthContextInfo;
import io.smallrye.jwt.auth.principal.JWTParser;
import io.smallrye.jwt.auth.principal.ParseException;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Inject;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * The bearer-token parser Quarkus's JWT validator uses, remembering the tokens it has verified: a token seen again
 * (the same string, so the same signature and claims) is not verified again until its {@code exp} or
 * {@code flashstock.tokens.cache-ttl}, whichever comes first. Verifying an RS256 token (the signature, then the
 * claims' JSON) took about a quarter of the service's CPU in a hot sale; a shop's backend sends one token for every
 * purchase it forwards.
 *
 * <p>Only verified tokens are remembered, under their whole string, so a token that differs in any byte (another
 * signature, a changed claim) is verified from scratch, and a refused one is refused again every time. Every other
 * way of parsing goes straight to smallrye-jwt's own parser.
 */
@Alternative
@Priority(1)
@ApplicationScoped
public class VerifiedTokens implements JWTParser {

    private record Verified(JsonWebToken token, long untilMillis) {
    }

    private final DefaultJWTParser verifier;
    private final int capacity;
    private final long ttlMillis;
    private final Clock clock;
    private final Map<String, Verified> verified = new ConcurrentHashMap<>();

    @Inject
    VerifiedTokens(DefaultJWTParser verifier, FlashstockConfig config) {
        this(verifier, config.tokens().cacheSize(), config.tokens().cacheTtl().toMillis(), Clock.systemUTC());
    }

    VerifiedTokens(DefaultJWTParser verifier, int capacity, long ttlMillis, Clock clock) {
        this.verifier = verifier;
        this.capacity = capacity;
        this.ttlMillis = ttlMillis;
        this.clock = clock;
    }

    @Override
    public JsonWebToken parse(String token) throws ParseException {
        if (capacity <= 0) {
            return verifier.parse(token);
        }
        long now = clock.millis();
        Verified known = verified.get(token);
        if (known != null && now < known.untilMillis()) {
            return known.token();
        }
        if (known != null) {
            verified.remove(token, known);
        }
        JsonWebToken fresh = verifier.parse(token); // throws for a token that does not verify: never remembered
        remember(token, fresh, now);
        return fresh;
    }

    private void remember(String token, JsonWebToken fresh, long now) {
        long expiresMillis = fresh.getExpirationTime() * 1000;
        long until = Math.min(now + ttlMillis, expiresMillis > 0 ? expiresMillis : now);
        if (until <= now) {
            return;
        }
        if (verified.size() >= capacity) {
            verified.values().removeIf(entry -> entry.untilMillis() <= now);
            if (verified.size() >= capacity) {
                verified.clear(); // full of live tokens: start over rather than track recency on every request
            }
        }
        verified.put(token, new Verified(fresh, until));
    }

    /** How many verified tokens are remembered now (tests). */
    int size() {
        return verified.size();
    }

    @Override
    public JsonWebToken parse(String token, JWTAuthContextInfo context) throws ParseException {
        return verifier.parse(token, context);
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
