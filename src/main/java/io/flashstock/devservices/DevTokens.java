package io.flashstock.devservices;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.quarkus.arc.profile.IfBuildProfile;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.jwt.build.Jwt;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Dev mode only: prints a token per role at start, signed with the dev key pair ({@link DevKeys}) and valid for a
 * day (exactly {@code flashstock.tokens.max-age}'s default: {@code exp - iat} is 24 h), for the configured audience
 * ({@code mp.jwt.verify.audiences}, {@code flashstock} by default), so the README's {@code curl} examples work. Not part of a production build (the bean exists only in the
 * {@code dev} build profile), and only when the dev key is the one trusted.
 */
@IfBuildProfile("dev")
@ApplicationScoped
public class DevTokens {

    private static final Logger LOG = Logger.getLogger(DevTokens.class);

    static final Duration VALIDITY = Duration.ofDays(1);

    void print(@Observes StartupEvent start,
            @ConfigProperty(name = "mp.jwt.verify.issuer") Optional<String> issuer,
            @ConfigProperty(name = "mp.jwt.verify.audiences") Optional<List<String>> audiences) {
        if (!issuer.orElse("").equals(DevKeys.ISSUER)) {
            return; // a real identity provider is configured: its tokens, not ours
        }
        String audience = audiences.filter(list -> !list.isEmpty()).map(list -> list.get(0)).orElse("flashstock");
        StringBuilder out = new StringBuilder("Dev-mode tokens (valid 24 h; dev key in target/dev-jwt):");
        token(out, audience, "admin", "admin", "ADMIN");
        token(out, audience, "shop", "shop", "SHOP");
        token(out, audience, "payment", "payment", "PAYMENT");
        token(out, audience, "u-1", "buyer", "BUYER");
        out.append("\n  e.g. curl -H \"Authorization: Bearer $ADMIN\" localhost:8080/items/phone-x");
        LOG.info(out);
    }

    private static void token(StringBuilder out, String audience, String subject, String role, String variable) {
        out.append("\n  export ").append(variable).append('=').append(token(audience, subject, role));
    }

    /** A dev token: iat and exp set together, so the lifetime is exactly VALIDITY, never a second over max-age. */
    static String token(String audience, String subject, String role) {
        long issuedAt = Instant.now().getEpochSecond();
        return Jwt.issuer(DevKeys.ISSUER).audience(audience).subject(subject).upn(subject)
                .groups(Set.of(role)).issuedAt(issuedAt).expiresAt(issuedAt + VALIDITY.toSeconds())
                .sign(DevKeys.privateKey());
    }
}
