package io.flashstock.purchase;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;

import io.flashstock.deduction.CartCommand;
import org.junit.jupiter.api.Test;

/**
 * An Idempotency-Key's fingerprint is stored (MySQL, Redis) and compared with a retry's, across versions and pods: it
 * must stay the SHA-256 of the same text, and threads computing it at once must not share a digest's state.
 */
class FingerprintTest {

    private static final String SINGLE = "0e7d2fd82372069146a3257ac7a32559b23244402918216fae91c400385c2389";

    @Test
    void aFingerprintIsTheSha256OfItsText() {
        assertEquals(SINGLE, PurchaseService.fingerprint("u-1", 2));
        assertEquals("955df61ccee720ec0fcb33cf380ae3ae76fcbbf8f5ac69200051d644024297d9", PurchaseService.fingerprint(
                new CartCommand("u-1", List.of(new CartCommand.Line("phone", 1), new CartCommand.Line("case", 2)),
                        null, null)));
    }

    @Test
    void threadsAtOnceEachGetTheirOwn() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Boolean>> results = IntStream.range(0, 4).mapToObj(t -> pool.submit(() -> {
                for (int i = 0; i < 20_000; i++) {
                    if (!SINGLE.equals(PurchaseService.fingerprint("u-1", 2))) {
                        return false;
                    }
                }
                return true;
            })).toList();
            for (Future<Boolean> result : results) {
                assertEquals(true, result.get());
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
