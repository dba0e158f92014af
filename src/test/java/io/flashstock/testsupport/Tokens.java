package io.flashstock.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Bearer tokens as an identity provider would issue them (RS256, signed with src/test/resources/jwt/privateKey.pem,
 * whose public half the test profile trusts), and the broken ones an attacker or a misconfigured client would send.
 * Signed with the JDK alone, so that a test controls every byte of a bad token.
 */
public final class Tokens {

    /** The issuer the test profile trusts ({@code %test.mp.jwt.verify.issuer}). */
    public static final String ISSUER = "https://issuer.flashstock.test";
    /** The audience the service requires by default ({@code mp.jwt.verify.audiences} in application.properties). */
    public static final String AUDIENCE = "flashstock";
    /**
     * What a service needs to trust these tokens: a jar started by the integration tests runs a production profile
     * without the test resources on its class path, and would not start without them.
     */
    public static Map<String, String> verification() {
        return Map.of("mp.jwt.verify.issuer", ISSUER, "mp.jwt.verify.publickey.location",
                Tokens.class.getResource("/jwt/publicKey.pem").toString());
    }

    private static final PrivateKey KEY = privateKey(resource("/jwt/privateKey.pem"));
    private static final String STAFF = "Bearer " + token("staff", List.of("admin", "shop", "payment"));

    private Tokens() {
    }

    /**
     * The default of every test request: a trusted backend with the roles admin, shop and payment, so the contract
     * suites drive the service as before (a shop names the buyer in the body).
     */
    public static String staff() {
        return STAFF;
    }

    /** {@code Bearer <token>} for {@code subject} with {@code groups}, valid for an hour. */
    public static String bearer(String subject, String... groups) {
        return "Bearer " + token(subject, List.of(groups));
    }

    /** A token for {@code subject} with {@code groups}, issued ({@code iat}) 5 s ago, valid for an hour. */
    public static String token(String subject, List<String> groups) {
        long now = Instant.now().getEpochSecond();
        return sign(header("RS256"), claims(ISSUER, AUDIENCE, subject, groups, now - 5, now + 3600), KEY);
    }

    /**
     * The kinds of broken token that must all be refused with 401: besides the obvious, one made for another
     * service ({@code aud}), one without {@code aud} or {@code iat} or {@code exp}, and one that lives 100 years
     * (longer than {@code flashstock.tokens.max-age}).
     */
    public enum Bad {
        EXPIRED, WRONG_ISSUER, WRONG_SIGNATURE, ALG_NONE, NO_GROUPS, NOT_A_JWT, WRONG_AUDIENCE, NO_AUDIENCE, NO_IAT,
        NO_EXP, HUNDRED_YEARS
    }

    /** {@code Bearer <token>} of the given broken kind, otherwise a valid admin-and-shop token. */
    public static String bearer(Bad kind) {
        long now = Instant.now().getEpochSecond();
        List<String> groups = List.of("admin", "shop", "payment", "buyer");
        return "Bearer " + switch (kind) {
            case EXPIRED -> signed(claims(ISSUER, AUDIENCE, "u-1", groups, now - 7200, now - 3600));
            case WRONG_ISSUER -> signed(claims("https://evil.example", AUDIENCE, "u-1", groups, now, now + 600));
            case WRONG_SIGNATURE -> sign(header("RS256"), claims(ISSUER, AUDIENCE, "u-1", groups, now, now + 600),
                    otherKey());
            case ALG_NONE -> base64(header("none")) + "."
                    + base64(claims(ISSUER, AUDIENCE, "u-1", groups, now, now + 600)) + ".";
            case NO_GROUPS -> signed(claims(ISSUER, AUDIENCE, "u-1", null, now, now + 600));
            case NOT_A_JWT -> "not-a-token";
            case WRONG_AUDIENCE -> signed(claims(ISSUER, "another-service", "u-1", groups, now, now + 600));
            case NO_AUDIENCE -> signed(claims(ISSUER, null, "u-1", groups, now, now + 600));
            case NO_IAT -> signed(claims(ISSUER, AUDIENCE, "u-1", groups, null, now + 600));
            case NO_EXP -> signed(claims(ISSUER, AUDIENCE, "u-1", groups, now, null));
            case HUNDRED_YEARS -> signed(claims(ISSUER, AUDIENCE, "u-1", groups, now, now + 100L * 365 * 86400));
        };
    }

    private static String signed(String claims) {
        return sign(header("RS256"), claims, KEY);
    }

    private static String header(String alg) {
        return "{\"alg\":\"" + alg + "\",\"typ\":\"JWT\"}";
    }

    /** The claims' JSON; a null audience, issued-at or expiry leaves that claim out. */
    private static String claims(String issuer, String audience, String subject, List<String> groups, Long issuedAt,
            Long expires) {
        StringBuilder json = new StringBuilder("{\"iss\":\"").append(issuer).append("\",\"sub\":\"").append(subject)
                .append('"');
        if (audience != null) {
            json.append(",\"aud\":\"").append(audience).append('"');
        }
        if (issuedAt != null) {
            json.append(",\"iat\":").append(issuedAt);
        }
        if (expires != null) {
            json.append(",\"exp\":").append(expires);
        }
        if (groups != null) {
            json.append(",\"groups\":[").append(groups.stream().map(g -> "\"" + g + "\"")
                    .collect(Collectors.joining(","))).append(']');
        }
        return json.append('}').toString();
    }

    private static String sign(String header, String claims, PrivateKey key) {
        String content = base64(header) + "." + base64(claims);
        try {
            Signature rs256 = Signature.getInstance("SHA256withRSA");
            rs256.initSign(key);
            rs256.update(content.getBytes(StandardCharsets.US_ASCII));
            return content + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(rs256.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String base64(String json) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }

    private static PrivateKey otherKey() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return generator.generateKeyPair().getPrivate();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static PrivateKey privateKey(String pem) {
        byte[] der = Base64.getDecoder().decode(pem.replaceAll("-----[A-Z ]+-----|\\s", ""));
        try {
            return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String resource(String name) {
        try (InputStream in = Tokens.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from the test resources");
            }
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
