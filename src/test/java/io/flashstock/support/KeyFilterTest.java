package io.flashstock.support;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The filter never forgets a key it holds, and rarely claims one it does not. */
class KeyFilterTest {

    @Test
    void noFalseNegativesAndAboutOnePercentFalsePositives() {
        List<String> held = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            held.add(KeyFilter.entry("user-" + (i % 700), "key-" + i));
        }
        KeyFilter filter = KeyFilter.of(held);
        for (String entry : held) {
            assertTrue(filter.mayContain(entry), entry);
        }
        int claimed = 0;
        for (int i = 0; i < 100_000; i++) {
            if (filter.mayContain(KeyFilter.entry("user-" + (i % 700), "other-" + i))) {
                claimed++;
            }
        }
        assertTrue(claimed < 2_000, "false positives: " + claimed + " of 100,000");
        assertTrue(!KeyFilter.of(List.of()).mayContain(KeyFilter.entry("u", "k")), "an empty filter holds nothing");
    }
}
