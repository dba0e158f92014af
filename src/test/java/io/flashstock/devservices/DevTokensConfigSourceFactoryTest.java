package io.flashstock.devservices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigValue;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.junit.jupiter.api.Test;

/** The dev-mode token key: only in profile dev, only where nothing is configured, and a pair that matches. */
class DevTokensConfigSourceFactoryTest {

    private final DevTokensConfigSourceFactory factory = new DevTokensConfigSourceFactory();

    @Test
    void devModeTrustsItsOwnKeyPair() throws Exception {
        ConfigSource source = only(factory.getConfigSources(context(List.of("dev"), Map.of())));
        assertEquals(DevKeys.ISSUER, source.getValue("mp.jwt.verify.issuer"));
        String location = source.getValue("mp.jwt.verify.publickey.location");
        assertTrue(location.startsWith("file:/"), location);

        // what the private key signs, the trusted public key verifies
        String pem = Files.readString(Path.of(location.substring("file:".length())));
        PublicKey publicKey = KeyFactory.getInstance("RSA").generatePublic(new X509EncodedKeySpec(
                Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", ""))));
        Signature signer = Signature.getInstance("SHA256withRSA");
        signer.initSign(DevKeys.privateKey());
        signer.update(new byte[] { 1, 2, 3 });
        byte[] signature = signer.sign();
        Signature verifier = Signature.getInstance("SHA256withRSA");
        verifier.initVerify(publicKey);
        verifier.update(new byte[] { 1, 2, 3 });
        assertTrue(verifier.verify(signature));
    }

    @Test
    void otherProfilesAndConfiguredKeysGetNothing() {
        for (String profile : List.of("prod", "test", "redis-lua")) {
            assertFalse(factory.getConfigSources(context(List.of(profile), Map.of())).iterator().hasNext(), profile);
        }
        assertFalse(factory.getConfigSources(context(List.of("dev"),
                Map.of("mp.jwt.verify.publickey.location", "https://idp.example/jwks"))).iterator().hasNext());
    }

    private static ConfigSource only(Iterable<ConfigSource> sources) {
        Iterator<ConfigSource> iterator = sources.iterator();
        assertTrue(iterator.hasNext(), "a config source");
        ConfigSource source = iterator.next();
        assertFalse(iterator.hasNext(), "one config source");
        return source;
    }

    private static ConfigSourceContext context(List<String> profiles, Map<String, String> values) {
        return new ConfigSourceContext() {
            @Override
            public ConfigValue getValue(String name) {
                String value = values.get(name);
                return value == null ? null : ConfigValue.builder().withName(name).withValue(value).build();
            }

            @Override
            public List<String> getProfiles() {
                return profiles;
            }

            @Override
            public Iterator<String> iterateNames() {
                return values.keySet().iterator();
            }
        };
    }
}
