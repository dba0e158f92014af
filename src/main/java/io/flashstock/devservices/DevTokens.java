package io.flashstock.devservices;

import java.time.Duration;
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
 * day, so the README's {@code curl} examples work. Not part of a production build (the bean exists only in the
 * {@code dev} build profile), and only when the dev key is the one trusted.
 */
@IfBuildProfile("dev")
@ApplicationScoped
public class DevTokens {

    private static final Logger LOG = Logger.getLogger(DevTokens.class);

    void print(@Observes StartupEvent start,
            @ConfigProperty(name = "mp.jwt.verify.issuer") Optional<String> issuer) {
        if (!issuer.orElse("").equals(DevKeys.ISSUER)) {
            return; // a real identity provider is configured: its tokens, not ours
        }
        StringBuilder out = new StringBuilder("Dev-mode tokens (valid 24 h; dev key in target/dev-jwt):");
        token(out, "admin", "admin", "ADMIN");
        token(out, "shop", "shop", "SHOP");
        token(out, "payment", "payment", "PAYMENT");
        token(out, "u-1", "buyer", "BUYER");
        out.append("\n  e.g. curl -H \"Authorization: Bearer $ADMIN\" localhost:8080/items/phone-x");
        LOG.info(out);
    }

    private static void token(StringBuilder out, String subject, String role, String variable) {
        String token = Jwt.issuer(DevKeys.ISSUER).subject(subject).upn(subject).groups(Set.of(role))
                .expiresIn(Duration.ofDays(1)).sign(DevKeys.privateKey());
        out.append("\n  export ").append(variable).append('=').append(token);
    }
}
