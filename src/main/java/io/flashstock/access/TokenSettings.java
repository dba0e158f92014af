package io.flashstock.access;

import java.util.ArrayList;
import java.util.List;

import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.Config;

/**
 * Refuses to start without what token verification needs: a public key ({@code mp.jwt.verify.publickey.location}
 * or {@code mp.jwt.verify.publickey}), the issuer ({@code mp.jwt.verify.issuer}) and the audience
 * ({@code mp.jwt.verify.audiences}, {@code flashstock} unless overridden). Without a key every token would be
 * refused; without an issuer, tokens of any issuer trusted with the same key would pass; without an audience, tokens
 * the issuer made for any other service would. There is no switch that turns authentication off: a pod that is not
 * configured for it does not start.
 */
public class TokenSettings {

    static final String KEY = "mp.jwt.verify.publickey";
    static final String KEY_LOCATION = "mp.jwt.verify.publickey.location";
    static final String ISSUER = "mp.jwt.verify.issuer";
    static final String AUDIENCES = "mp.jwt.verify.audiences";

    void check(@Observes StartupEvent start, Config config) {
        List<String> missing = missing(config);
        if (!missing.isEmpty()) {
            throw new IllegalStateException("Bearer token verification is not configured: set "
                    + String.join(" and ", missing)
                    + " (environment: MP_JWT_VERIFY_PUBLICKEY_LOCATION, MP_JWT_VERIFY_ISSUER, MP_JWT_VERIFY_AUDIENCES);"
                    + " see docs/operations.md, \"Bearer tokens\".");
        }
    }

    static List<String> missing(Config config) {
        List<String> missing = new ArrayList<>();
        if (blank(config, KEY) && blank(config, KEY_LOCATION)) {
            missing.add(KEY_LOCATION + " (or " + KEY + ")");
        }
        if (blank(config, ISSUER)) {
            missing.add(ISSUER);
        }
        if (blank(config, AUDIENCES)) {
            missing.add(AUDIENCES);
        }
        return missing;
    }

    private static boolean blank(Config config, String name) {
        return config.getOptionalValue(name, String.class).map(String::isBlank).orElse(true);
    }
}
