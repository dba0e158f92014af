package io.flashstock.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.Test;

/** No start without an issuer, a key and an audience: authentication cannot be left off by a missing setting. */
class TokenSettingsTest {

    @Test
    void issuerKeyAndAudienceAreAllRequired() {
        assertEquals(3, TokenSettings.missing(config(Map.of())).size());
        assertEquals(List.of(TokenSettings.ISSUER),
                TokenSettings.missing(config(Map.of(TokenSettings.KEY_LOCATION, "file:/k.pem",
                        TokenSettings.AUDIENCES, "flashstock"))));
        assertTrue(TokenSettings.missing(config(Map.of(TokenSettings.ISSUER, "https://idp",
                TokenSettings.AUDIENCES, "flashstock"))).get(0).startsWith(TokenSettings.KEY_LOCATION));
        assertEquals(1, TokenSettings.missing(config(Map.of(TokenSettings.ISSUER, " ",
                TokenSettings.KEY, "MIIB", TokenSettings.AUDIENCES, "flashstock"))).size(), "a blank issuer is none");
        assertEquals(List.of(TokenSettings.AUDIENCES), TokenSettings.missing(config(Map.of(TokenSettings.ISSUER,
                "https://idp", TokenSettings.KEY, "MIIB", TokenSettings.AUDIENCES, " "))), "a blank audience is none");
        assertTrue(TokenSettings.missing(config(Map.of(TokenSettings.ISSUER, "https://idp",
                TokenSettings.KEY, "MIIB", TokenSettings.AUDIENCES, "flashstock"))).isEmpty());
    }

    private static SmallRyeConfig config(Map<String, String> values) {
        return new SmallRyeConfigBuilder().withSources(new PropertiesConfigSource(values, "test", 100)).build();
    }
}
