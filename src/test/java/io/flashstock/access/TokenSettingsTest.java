package io.flashstock.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.Test;

/** No start without an issuer and a key: authentication cannot be left off by a missing setting. */
class TokenSettingsTest {

    @Test
    void issuerAndKeyAreBothRequired() {
        assertEquals(2, TokenSettings.missing(config(Map.of())).size());
        assertEquals(List.of(TokenSettings.ISSUER),
                TokenSettings.missing(config(Map.of(TokenSettings.KEY_LOCATION, "file:/k.pem"))));
        assertTrue(TokenSettings.missing(config(Map.of(TokenSettings.ISSUER, "https://idp")))
                .get(0).startsWith(TokenSettings.KEY_LOCATION));
        assertEquals(1, TokenSettings.missing(config(Map.of(TokenSettings.ISSUER, " ",
                TokenSettings.KEY, "MIIB"))).size(), "a blank issuer is none");
        assertTrue(TokenSettings.missing(config(Map.of(TokenSettings.ISSUER, "https://idp",
                TokenSettings.KEY, "MIIB"))).isEmpty());
    }

    private static SmallRyeConfig config(Map<String, String> values) {
        return new SmallRyeConfigBuilder().withSources(new PropertiesConfigSource(values, "test", 100)).build();
    }
}
