package io.flashstock.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

/** A caller's X-Request-Id is kept only when short and safe to log; anything else gets a new id. */
class RequestIdsTest {

    @Test
    void keepsAShortSafeId() {
        for (String id : new String[] { "a", "req-1", "4bf92f3577b34da6a3ce929d0e0e4736", "ingress:01.x_y",
                "x".repeat(64) }) {
            assertEquals(id, RequestIds.accept(id));
        }
    }

    @Test
    void replacesAnythingElse() {
        for (String id : Arrays.asList(null, "", "x".repeat(65), "has space", "line\nbreak", "quote\"", "a{b}",
                "Bearer eyJhbGciOiJSUzI1NiJ9.e30.sig", "ünïcode", "tab\t")) {
            String accepted = RequestIds.accept(id);
            assertNotEquals(id, accepted);
            assertTrue(accepted.matches("[0-9a-f]{16}"), accepted);
        }
    }

    @Test
    void accessLineDurationsHaveThreeDecimals() {
        assertEquals("0.000", AccessLog.millis(0));
        assertEquals("0.007", AccessLog.millis(7));
        assertEquals("2.871", AccessLog.millis(2_871));
        assertEquals("1500.020", AccessLog.millis(1_500_020));
    }

    @Test
    void accessLineSubjectsKeepPrintableAsciiAndMarkTheRest() {
        String plain = "buyer-7";
        assertSame(plain, AccessLog.printable(plain));
        assertEquals("a?b?c??", AccessLog.printable("a b\nc\u00fc\u0000"));
        assertEquals("?x", AccessLog.printable("\u007fx"));
        assertEquals("a?b", AccessLog.printable("a\ud83d\ude00b"), "a character outside the BMP is one '?'");
        assertEquals("?", AccessLog.printable("\ud83d"), "a lone surrogate is one '?'");
        assertEquals("", AccessLog.printable(""));
    }

    @Test
    void newIdsDiffer() {
        assertNotEquals(RequestIds.generate(), RequestIds.generate());
    }
}
