package io.flashstock.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import io.flashstock.testsupport.Tokens;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.smallrye.jwt.auth.principal.DefaultJWTParser;
import io.smallrye.jwt.auth.principal.JWTAuthContextInfo;
import io.smallrye.jwt.auth.principal.ParseException;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.junit.jupiter.api.Test;

/** A token is verified once and then remembered, never past its expiry or the TTL; refused tokens never are. */
class VerifiedTokensTest {

    /** smallrye-jwt's own parser with the test key, counting the verifications it does. */
    private static final class CountingParser extends DefaultJWTParser {
        final AtomicInteger verifications = new AtomicInteger();

        CountingParser() {
            super(context());
        }

        private static JWTAuthContextInfo context() {
            JWTAuthContextInfo context = new JWTAuthContextInfo("jwt/publicKey.pem", Tokens.ISSUER);
            context.setRequiredClaims(Set.of("sub", "groups")); // as smallrye.jwt.required.claims in the service
            context.setExpectedAudience(Set.of(Tokens.AUDIENCE)); // as mp.jwt.verify.audiences in the service
            context.setClockSkew(SKEW_SECONDS); // as mp.jwt.verify.clock.skew in the service
            return context;
        }

        @Override
        public JsonWebToken parse(String token) throws ParseException {
            verifications.incrementAndGet();
            return super.parse(token);
        }
    }

    private static final int SKEW_SECONDS = 30;
    private static final Duration MAX_AGE = Duration.ofHours(24);

    private final CountingParser parser = new CountingParser();
    private Instant now = Instant.now();
    private final Clock clock = new Clock() {
        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    };

    private VerifiedTokens tokens(int capacity, Duration ttl) {
        return new VerifiedTokens(parser, capacity, ttl.toMillis(), MAX_AGE.toSeconds(), SKEW_SECONDS, clock,
                Runnable::run);
    }

    @Test
    void aGoodTokenIsAccepted() throws Exception {
        for (int capacity : new int[] { 100, 0 }) {
            JsonWebToken token = tokens(capacity, Duration.ofSeconds(60)).parse(Tokens.token("u-1", List.of("buyer")));
            assertEquals("u-1", token.getSubject());
            assertEquals(Set.of(Tokens.AUDIENCE), token.getAudience());
        }
    }

    @Test
    void anotherAudienceNoIatAndAHundredYearTokenAreRefused() {
        for (int capacity : new int[] { 100, 0 }) {
            VerifiedTokens tokens = tokens(capacity, Duration.ofSeconds(60));
            for (Tokens.Bad bad : List.of(Tokens.Bad.WRONG_AUDIENCE, Tokens.Bad.NO_AUDIENCE, Tokens.Bad.NO_IAT,
                    Tokens.Bad.NO_EXP, Tokens.Bad.HUNDRED_YEARS)) {
                String token = Tokens.bearer(bad).substring("Bearer ".length());
                assertThrows(ParseException.class, () -> tokens.parse(token), bad + ", cache size " + capacity);
            }
            assertEquals(0, tokens.size());
        }
    }

    @Test
    void lifetimeIsCheckedAgainstMaxAgeAndTheSkew() throws Exception {
        VerifiedTokens tokens = tokens(100, Duration.ofSeconds(60));
        long nowMillis = now.toEpochMilli();
        long nowSeconds = now.getEpochSecond();
        tokens.checkLifetime(claims(nowSeconds, nowSeconds + MAX_AGE.toSeconds()), nowMillis); // exactly max-age
        assertThrows(ParseException.class,
                () -> tokens.checkLifetime(claims(nowSeconds, nowSeconds + MAX_AGE.toSeconds() + 1), nowMillis),
                "a second longer than max-age");
        tokens.checkLifetime(claims(nowSeconds + SKEW_SECONDS, nowSeconds + 3600), nowMillis); // within the skew
        assertThrows(ParseException.class,
                () -> tokens.checkLifetime(claims(nowSeconds + SKEW_SECONDS + 1, nowSeconds + 3600), nowMillis),
                "issued beyond the skew in the future");
        assertThrows(ParseException.class, () -> tokens.checkLifetime(claims(null, nowSeconds + 60), nowMillis));
        assertThrows(ParseException.class, () -> tokens.checkLifetime(claims(nowSeconds, null), nowMillis));
    }

    @Test
    void aTokenInSteadyUseStaysCachedThroughAStormOfOneOffTokens() throws Exception {
        long nowSeconds = now.getEpochSecond();
        AtomicInteger steadyVerifications = new AtomicInteger();
        AtomicInteger allVerifications = new AtomicInteger();
        DefaultJWTParser stub = new DefaultJWTParser() { // no signatures: 10,000 RS256 tokens would take a while
            @Override
            public JsonWebToken parse(String token) {
                allVerifications.incrementAndGet();
                if (token.equals("steady")) {
                    steadyVerifications.incrementAndGet();
                }
                return claims(nowSeconds - 5, nowSeconds + 3600);
            }
        };
        VerifiedTokens tokens = new VerifiedTokens(stub, 100, Duration.ofSeconds(60).toMillis(), MAX_AGE.toSeconds(),
                SKEW_SECONDS, clock, Runnable::run);
        for (int i = 0; i < 10; i++) {
            tokens.parse("steady"); // a shop's backend, one token for every purchase it forwards
        }
        for (int i = 0; i < 10_000; i++) {
            tokens.parse("one-off-" + i); // a crowd of buyers or an attacker, each token once
            if (i % 10 == 0) {
                tokens.parse("steady");
            }
        }
        assertEquals(1, steadyVerifications.get(), "the steady token was verified once and stayed cached");
        assertEquals(10_001, allVerifications.get(), "every one-off token was verified");
        assertTrue(tokens.size() <= 100, "bounded: " + tokens.size());
    }

    /** Claims alone, as a verified token would carry them; a null leaves the claim out. */
    static JsonWebToken claims(Long issuedAt, Long expires) {
        java.util.Map<String, Object> claims = new java.util.HashMap<>();
        claims.put("sub", "u-1");
        if (issuedAt != null) {
            claims.put("iat", issuedAt);
        }
        if (expires != null) {
            claims.put("exp", expires);
        }
        return new JsonWebToken() {
            @Override
            public String getName() {
                return "u-1";
            }

            @Override
            public Set<String> getClaimNames() {
                return claims.keySet();
            }

            @Override
            @SuppressWarnings("unchecked")
            public <T> T getClaim(String name) {
                return (T) claims.get(name);
            }
        };
    }

    @Test
    void aTokenSeenAgainIsNotVerifiedAgainWithinTheTtl() throws Exception {
        VerifiedTokens tokens = tokens(100, Duration.ofSeconds(60));
        String token = Tokens.token("u-1", List.of("buyer"));
        JsonWebToken first = tokens.parse(token);
        assertSame(first, tokens.parse(token));
        assertEquals(1, parser.verifications.get());
        assertEquals("u-1", first.getSubject());

        now = now.plusSeconds(61);
        tokens.parse(token);
        assertEquals(2, parser.verifications.get(), "after the TTL the token is verified again");
    }

    @Test
    void hitsAndMissesAreCountedInMicrometer() throws Exception {
        VerifiedTokens tokens = tokens(100, Duration.ofSeconds(60));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        tokens.monitor(registry);
        String token = Tokens.token("u-1", List.of("buyer"));
        for (int i = 0; i < 3; i++) {
            tokens.parse(token);
        }
        assertEquals(1, parser.verifications.get());
        assertEquals(2.0, gets(registry, "hit"), "the second and third parse");
        assertEquals(1.0, gets(registry, "miss"), "a miss is a verification");
        assertEquals(1.0, registry.get("cache.size").tag("cache", VerifiedTokens.METRICS_NAME).gauge().value());
    }

    private static double gets(SimpleMeterRegistry registry, String result) {
        return registry.get("cache.gets").tag("cache", VerifiedTokens.METRICS_NAME).tag("result", result)
                .functionCounter().count();
    }

    @Test
    void aTokenIsNeverRememberedPastItsExpiry() throws Exception {
        VerifiedTokens tokens = tokens(100, Duration.ofDays(1));
        String token = Tokens.token("u-1", List.of("buyer")); // expires in an hour
        tokens.parse(token);
        now = now.plusSeconds(3601);
        tokens.parse(token);
        assertEquals(2, parser.verifications.get());
    }

    @Test
    void refusedTokensAreRefusedEveryTimeAndNeverRemembered() {
        VerifiedTokens tokens = tokens(100, Duration.ofSeconds(60));
        for (Tokens.Bad bad : Tokens.Bad.values()) {
            String token = Tokens.bearer(bad).substring("Bearer ".length());
            assertThrows(ParseException.class, () -> tokens.parse(token), bad.name());
            assertThrows(ParseException.class, () -> tokens.parse(token), bad.name() + " again");
        }
        assertEquals(0, tokens.size());
        assertEquals(2 * Tokens.Bad.values().length, parser.verifications.get());
    }

    @Test
    void aTokenDifferingInOneByteIsVerifiedFromScratch() throws Exception {
        VerifiedTokens tokens = tokens(100, Duration.ofSeconds(60));
        String token = Tokens.token("u-1", List.of("buyer"));
        tokens.parse(token);
        // The first character of the signature: all six of its bits are signature bits. The last one is not a
        // good choice, as its low bits are base64url padding that decoders ignore, so changing them can leave
        // the very same signature.
        int at = token.lastIndexOf('.') + 1;
        char first = token.charAt(at);
        String tampered = token.substring(0, at) + (first == 'A' ? 'B' : 'A') + token.substring(at + 1);
        assertThrows(ParseException.class, () -> tokens.parse(tampered));
        assertEquals(2, parser.verifications.get());
    }

    @Test
    void theCacheStaysWithinItsSizeAndZeroTurnsItOff() throws Exception {
        VerifiedTokens bounded = tokens(2, Duration.ofSeconds(60));
        for (int i = 0; i < 5; i++) {
            bounded.parse(Tokens.token("u-" + i, List.of("buyer")));
        }
        assertEquals(2, bounded.size(), "full of live tokens: some went, never more than the size");

        VerifiedTokens off = tokens(0, Duration.ofSeconds(60));
        String token = Tokens.token("u-1", List.of("buyer"));
        off.parse(token);
        off.parse(token);
        assertEquals(7, parser.verifications.get());
    }
}
