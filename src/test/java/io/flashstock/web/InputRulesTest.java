package io.flashstock.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validation;
import jakarta.validation.Validator;
import jakarta.validation.ValidatorFactory;
import org.hibernate.validator.messageinterpolation.ParameterMessageInterpolator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The contract's input rules: identifiers (which also keep Redis key syntax out of every key) and the sale-window
 * instant range, as JSON bodies reach it through {@link StrictJson}.
 */
class InputRulesTest {

    /** A body with one instant, read as the service reads request bodies, checked as bean validation checks them. */
    record Window(@SaleInstant Instant endsAt) {
    }

    private static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule());
    private static ValidatorFactory validation;
    private static Validator validator;

    @BeforeAll
    static void setUp() {
        new StrictJson().customize(JSON);
        validation = Validation.byDefaultProvider().configure()
                .messageInterpolator(new ParameterMessageInterpolator()).buildValidatorFactory();
        validator = validation.getValidator();
    }

    @AfterAll
    static void tearDown() {
        validation.close();
    }

    private static Set<ConstraintViolation<Window>> violations(String instantJson) throws Exception {
        return validator.validate(JSON.readValue("{\"endsAt\":" + instantJson + "}", Window.class));
    }

    @ParameterizedTest
    @ValueSource(strings = { "\"1970-01-01T00:00:01Z\"", "\"2026-12-01T12:00:00Z\"", "\"2026-12-01T14:00:00+02:00\"",
            "\"9999-12-31T23:59:59Z\"", "\"9999-12-31T23:59:59.999999Z\"", "null" })
    void saleInstantsInRange(String instant) throws Exception {
        assertEquals(Set.of(), violations(instant), instant);
    }

    @ParameterizedTest
    @ValueSource(strings = { "\"1970-01-01T00:00:00Z\"", "\"1970-01-01T00:00:00.999Z\"", "\"1969-12-31T23:59:59Z\"",
            "\"-0001-01-01T00:00:00Z\"", "\"9999-12-31T23:59:59.9999991Z\"", "\"+10000-01-01T00:00:00Z\"",
            // Jackson also reads numbers (and digit strings) as epoch seconds: the range applies to them too
            "0", "-1", "\"0\"" })
    void saleInstantsOutOfRange(String instant) throws Exception {
        Set<ConstraintViolation<Window>> violations = violations(instant);
        assertEquals(1, violations.size(), instant);
        ConstraintViolation<Window> violation = violations.iterator().next();
        assertEquals("endsAt", violation.getPropertyPath().toString());
        assertEquals(InputRules.SALE_INSTANT_MESSAGE, violation.getMessage());
    }

    /** A year past 9999 without its sign is not ISO-8601: the body cannot be read (400 naming the field). */
    @Test
    void unsignedFiveDigitYearIsUnreadable() {
        InvalidFormatException e = assertThrows(InvalidFormatException.class,
                () -> JSON.readValue("{\"endsAt\":\"10000-01-01T00:00:00Z\"}", Window.class));
        assertEquals("endsAt", e.getPath().get(0).getFieldName());
    }

    @Test
    void saleInstantBoundaries() {
        assertFalse(InputRules.saleInstant(Instant.parse("1970-01-01T00:00:00Z")));
        assertTrue(InputRules.saleInstant(Instant.parse("1970-01-01T00:00:01Z")));
        assertTrue(InputRules.saleInstant(Instant.parse("9999-12-31T23:59:59Z")));
        assertFalse(InputRules.saleInstant(Instant.parse("+10000-01-01T00:00:00Z")));
        assertTrue(InputRules.saleInstant(null));
    }

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

    /**
     * The scans the purchase path uses say exactly what the patterns say: every character from U+0000 to U+017F at
     * the first, a middle and the last place of a valid value, the length bounds, a trailing line break, and 20,000
     * random strings over the characters at the rules' edges.
     */
    @Test
    void scansAgreeWithThePatterns() {
        assertScanAgrees(InputRules.SKU, InputRules::isSku, "a");
        assertScanAgrees(InputRules.USER_ID, InputRules::isUserId, "u");
        assertScanAgrees(InputRules.IDEMPOTENCY_KEY, InputRules::isIdempotencyKey, "k");
        assertScanAgrees(InputRules.REQUEST_ID, InputRules::isRequestId, "r");
    }

    private static void assertScanAgrees(String regex, Predicate<String> scan, String valid) {
        Pattern pattern = Pattern.compile(regex);
        List<String> inputs = new ArrayList<>(List.of("", "\n", valid + "\n", valid + "\r\n"));
        for (int length : new int[] { 1, 2, 63, 64, 65, 200 }) {
            inputs.add(valid.repeat(length));
        }
        for (char c = 0; c <= 0x17F; c++) {
            inputs.add(c + valid.repeat(3));
            inputs.add(valid + c + valid);
            inputs.add(valid.repeat(3) + c);
        }
        String edges = "aAzZ09._-@!~ \t:{}*/\u007f\u00e4\u00fc";
        Random random = new Random(36);
        for (int i = 0; i < 20_000; i++) {
            StringBuilder text = new StringBuilder();
            for (int n = random.nextInt(70); n > 0; n--) {
                text.append(edges.charAt(random.nextInt(edges.length())));
            }
            inputs.add(text.toString());
        }
        for (String input : inputs) {
            assertEquals(pattern.matcher(input).matches(), scan.test(input), () -> regex + " on " + visible(input));
        }
        assertFalse(scan.test(null), regex + " on null");
    }

    private static String visible(String text) {
        return text.chars().mapToObj(c -> String.format("\\u%04x", c)).reduce("", String::concat);
    }
}
