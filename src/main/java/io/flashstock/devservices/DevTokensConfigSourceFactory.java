package io.flashstock.devservices;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.PropertiesConfigSource;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * Dev mode only (profile {@code dev}): where no token key or issuer is configured, trusts the dev key pair
 * ({@link DevKeys}) and its issuer, so that the tokens {@link DevTokens} prints work with {@code curl}. Any other
 * profile gets nothing from here: production must configure its identity provider's key and issuer, or the service
 * does not start ({@code io.flashstock.access.TokenSettings}).
 */
public class DevTokensConfigSourceFactory implements ConfigSourceFactory {

    static final String NAME = "flashstock dev-mode token key";

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        if (!context.getProfiles().contains("dev")) {
            return List.of();
        }
        Map<String, String> values = new HashMap<>();
        if (unset(context.getValue("mp.jwt.verify.publickey"))
                && unset(context.getValue("mp.jwt.verify.publickey.location"))) {
            values.put("mp.jwt.verify.publickey.location", "file:" + DevKeys.ensure());
            if (unset(context.getValue("mp.jwt.verify.issuer"))) {
                values.put("mp.jwt.verify.issuer", DevKeys.ISSUER);
            }
        }
        return values.isEmpty() ? List.of()
                : List.of(new PropertiesConfigSource(values, NAME, LocalServersConfigSourceFactory.ORDINAL));
    }

    private static boolean unset(ConfigValue value) {
        return value == null || value.getValue() == null || value.getValue().isBlank();
    }
}
