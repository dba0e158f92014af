package io.flashstock.web;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The contract's identifier rules, which also keep Redis key syntax out of every key. */
class InputRulesTest {

    @ParameterizedTest
    @ValueSource(strings = { "phone-x", "A", "a.b_c-9", "0123456789012345678901234567890123456789012345678901234567890123" })
    void validSkus(String sku) {
        assertTrue(sku.matches(InputRules.SKU), sku);
    }

    @ParameterizedTest
    @ValueSource(strings = { "", "-x", ".x", "a b", "a{b}", "a:b", "a*", "ä", "a/b",
            "01234567890123456789012345678901234567890123456789012345678901234" })
    void invalidSkus(String sku) {
        assertFalse(sku.matches(InputRules.SKU), sku);
    }

    @ParameterizedTest
    @ValueSource(strings = { "u-1", "buyer@example.com", "a.b_c" })
    void validUsers(String user) {
        assertTrue(user.matches(InputRules.USER_ID), user);
    }

    @ParameterizedTest
    @ValueSource(strings = { "", "a b", "a:b", "a{b}", "ü" })
    void invalidUsers(String user) {
        assertFalse(user.matches(InputRules.USER_ID), user);
    }

    @ParameterizedTest
    @ValueSource(strings = { "7c0e6a52", "!~", "key:with:colons" })
    void validIdempotencyKeys(String key) {
        assertTrue(key.matches(InputRules.IDEMPOTENCY_KEY), key);
    }

    @ParameterizedTest
    @ValueSource(strings = { "", "has space", "tab\t", "ü" })
    void invalidIdempotencyKeys(String key) {
        assertFalse(key.matches(InputRules.IDEMPOTENCY_KEY), key);
    }
}
