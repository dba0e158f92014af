package io.flashstock.devservices;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;

import io.smallrye.jwt.auth.principal.DefaultJWTParser;
import io.smallrye.jwt.auth.principal.JWTAuthContextInfo;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.junit.jupiter.api.Test;

/**
 * The tokens dev mode prints pass the checks the service makes: the dev key and issuer, the audience, and a lifetime
 * ({@code exp - iat}) of exactly a day, the default {@code flashstock.tokens.max-age}.
 */
class DevTokensTest {

    @Test
    void devTokensNameTheAudienceAndLiveExactlyADay() throws Exception {
        JWTAuthContextInfo context = new JWTAuthContextInfo("file:" + DevKeys.ensure(), DevKeys.ISSUER);
        context.setExpectedAudience(Set.of("flashstock"));
        JsonWebToken token = new DefaultJWTParser(context).parse(DevTokens.token("flashstock", "u-1", "buyer"));
        assertEquals("u-1", token.getSubject());
        assertEquals(Set.of("flashstock"), token.getAudience());
        assertEquals(Set.of("buyer"), token.getGroups());
        assertEquals(DevTokens.VALIDITY.toSeconds(), token.getExpirationTime() - token.getIssuedAtTime());
        assertEquals(86_400, DevTokens.VALIDITY.toSeconds(), "the default flashstock.tokens.max-age");
    }
}
