package io.flashstock.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.Random;

import org.junit.jupiter.api.Test;

/** The DATETIME number of an instant is its UTC wall time, digit for digit, on any day. */
class TimestampsTest {

    private static final DateTimeFormatter DIGITS = DateTimeFormatter.ofPattern("uuuuMMddHHmmss")
            .withZone(java.time.ZoneOffset.UTC);

    @Test
    void theNumberIsTheUtcWallTimeAsDigits() {
        assertEquals(19700101000000L, Timestamps.asNumber(Instant.EPOCH));
        assertEquals(20261206010203L, Timestamps.asNumber(Instant.parse("2026-12-06T01:02:03Z")));
        assertEquals(20240229235959L, Timestamps.asNumber(Instant.parse("2024-02-29T23:59:59Z")));
        assertEquals(99991231235959L, Timestamps.asNumber(Instant.parse("9999-12-31T23:59:59Z")));
        assertEquals(19691231235959L, Timestamps.asNumber(Instant.parse("1969-12-31T23:59:59Z")));
        Random random = new Random(36);
        for (int i = 0; i < 10_000; i++) {
            Instant instant = Instant.ofEpochSecond(random.nextLong(253_402_300_800L));
            assertEquals(Long.parseLong(DIGITS.format(instant)), Timestamps.asNumber(instant), instant.toString());
        }
    }
}
