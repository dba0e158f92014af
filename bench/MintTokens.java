import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.stream.IntStream;

/**
 * The distinct buyer tokens of the token storm (bench/run.sh): COUNT RS256 JWTs, each with its own {@code sub}
 * (PREFIX-1 .. PREFIX-COUNT), role {@code buyer}, {@code aud} flashstock, {@code iat} now and {@code exp} a day on
 * (the service's {@code flashstock.tokens.max-age} default), signed with the bench's private key (PKCS#8 PEM, as
 * {@code openssl genpkey} writes it): the claims and signature of {@code mint_token} in bench/lib/service.sh, made
 * in one JVM on every core, because an {@code openssl} process per token would take minutes for 20,000.
 *
 * <p>Usage: {@code java MintTokens PRIVATE_KEY_PEM ISSUER PREFIX COUNT OUT_FILE [AUDIENCE [LIFETIME_SECONDS]]}.
 * Writes one line per token, "{@code <sub> <token>}", in subject order. AUDIENCE (default flashstock) and
 * LIFETIME_SECONDS ({@code exp - iat}, default 86400) make the tokens bench/abuse.sh expects to be refused.
 */
public final class MintTokens {

    public static void main(String[] args) throws Exception {
        if (args.length < 5 || args.length > 7) {
            System.err.println("usage: java MintTokens PRIVATE_KEY_PEM ISSUER PREFIX COUNT OUT_FILE"
                    + " [AUDIENCE [LIFETIME_SECONDS]]");
            System.exit(2);
        }
        PrivateKey key = privateKey(Path.of(args[0]));
        String issuer = args[1];
        String prefix = args[2];
        int count = Integer.parseInt(args[3]);
        String audience = args.length > 5 ? args[5] : "flashstock";
        long lifetime = args.length > 6 ? Long.parseLong(args[6]) : 86400;
        long now = System.currentTimeMillis() / 1000;
        String header = b64("{\"alg\":\"RS256\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8));
        String[] lines = new String[count];
        IntStream.range(0, count).parallel().forEach(i -> {
            String sub = prefix + "-" + (i + 1);
            String claims = b64(String.format(
                    "{\"iss\":\"%s\",\"aud\":\"%s\",\"sub\":\"%s\",\"groups\":[\"buyer\"],\"iat\":%d,\"exp\":%d}",
                    issuer, audience, sub, now, now + lifetime).getBytes(StandardCharsets.UTF_8));
            String signed = header + "." + claims;
            lines[i] = sub + " " + signed + "." + b64(sign(key, signed));
        });
        try (BufferedWriter out = Files.newBufferedWriter(Path.of(args[4]), StandardCharsets.US_ASCII)) {
            for (String line : lines) {
                out.write(line);
                out.write('\n');
            }
        }
    }

    private static PrivateKey privateKey(Path pem) throws IOException, GeneralSecurityException {
        String text = Files.readString(pem, StandardCharsets.US_ASCII);
        if (!text.contains("-----BEGIN PRIVATE KEY-----")) {
            throw new IllegalArgumentException(pem + ": not a PKCS#8 PEM private key (BEGIN PRIVATE KEY)");
        }
        String base64 = text.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64)));
    }

    private static byte[] sign(PrivateKey key, String signed) {
        try {
            Signature signature = Signature.getInstance("SHA256withRSA");
            signature.initSign(key);
            signature.update(signed.getBytes(StandardCharsets.US_ASCII));
            return signature.sign();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String b64(byte[] bytes) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
