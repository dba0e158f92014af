package io.flashstock.deduction.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

/** How long Redis remembers an Idempotency-Key put back from MySQL: what its TTL has left, never more. */
class IdempotencyKeysTest {

    private static final Duration TTL = Duration.ofHours(24);
    private static final Instant CREATED = Instant.parse("2026-11-26T08:00:00Z");

    private static long ttlAt(Instant now) {
        return IdempotencyKeys.Remembered.of("o-1", "fp", CREATED, CREATED.plusSeconds(600), TTL, now).ttlSeconds();
    }

    @Test
    void aKeyKeepsWhatItsTtlHasLeft() {
        assertEquals(TTL.toSeconds() - 3600, ttlAt(CREATED.plusSeconds(3600)));
        assertEquals(2, ttlAt(CREATED.plus(TTL).minusMillis(1_500)), "rounded up to a whole second");
    }

    /** A warm-up copies keys still within their TTL; one with under a second left used to get a whole TTL again. */
    @Test
    void aKeyWithLessThanASecondLeftKeepsOneSecond() {
        assertEquals(1, ttlAt(CREATED.plus(TTL).minusMillis(300)));
    }

    /** A key whose order MySQL found repeated after Redis forgot it: a client retries it now, so a whole TTL. */
    @Test
    void aKeyPastItsTtlIsRememberedForAWholeTtlAgain() {
        assertEquals(TTL.toSeconds(), ttlAt(CREATED.plus(TTL)));
        assertEquals(TTL.toSeconds(), ttlAt(CREATED.plus(TTL).plusSeconds(60)));
    }
}
