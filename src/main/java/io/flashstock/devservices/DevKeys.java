package io.flashstock.devservices;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;

/**
 * Dev mode only: the key pair that signs the tokens {@link DevTokens} prints, made on the first start under
 * {@code target/dev-jwt} (never committed; {@code mvn clean} makes a new one) and kept across restarts, so that
 * printed tokens stay valid while the developer works.
 */
final class DevKeys {

    /** The issuer of dev tokens. */
    static final String ISSUER = "https://flashstock.dev/issuer";

    private static final Path DIR = Path.of("target", "dev-jwt");
    static final Path PUBLIC_KEY = DIR.resolve("publicKey.pem");
    private static final Path PRIVATE_KEY = DIR.resolve("privateKey.pem");

    private DevKeys() {
    }

    /** The public key's file (absolute), created with its private half if missing. */
    static synchronized Path ensure() {
        if (Files.isReadable(PUBLIC_KEY) && Files.isReadable(PRIVATE_KEY)) {
            return PUBLIC_KEY.toAbsolutePath();
        }
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            KeyPair pair = generator.generateKeyPair();
            Files.createDirectories(DIR);
            write(PRIVATE_KEY, "PRIVATE KEY", pair.getPrivate().getEncoded());
            write(PUBLIC_KEY, "PUBLIC KEY", pair.getPublic().getEncoded());
            return PUBLIC_KEY.toAbsolutePath();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot make the dev-mode key pair", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the dev-mode key pair under " + DIR, e);
        }
    }

    static PrivateKey privateKey() {
        ensure();
        try {
            String pem = Files.readString(PRIVATE_KEY, StandardCharsets.US_ASCII);
            byte[] der = Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", ""));
            return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the dev-mode private key " + PRIVATE_KEY + " cannot be read", e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes a PEM file through a temporary one, so a concurrent reader never sees half a key. */
    private static void write(Path file, String type, byte[] der) throws IOException {
        String pem = "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, new byte[] { '\n' }).encodeToString(der)
                + "\n-----END " + type + "-----\n";
        Path temporary = Files.createTempFile(DIR, "key", ".tmp");
        Files.writeString(temporary, pem, StandardCharsets.US_ASCII);
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
