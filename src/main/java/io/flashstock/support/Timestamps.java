package io.flashstock.support;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/**
 * Times stored with orders and items, in whole seconds: MySQL Connector/J drops fractional seconds against a
 * server that reports a 5.5-style version (as MariaDB does), so an answer given before the write and the same
 * order read back later (idempotent replay, GET) would otherwise disagree.
 */
public final class Timestamps {

    private static final long SECONDS_PER_DAY = 86_400;

    private Timestamps() {
    }

    public static Instant now() {
        return Instant.now().truncatedTo(ChronoUnit.SECONDS);
    }

    /**
     * {@code instant} (whole seconds) as the number MySQL reads as a DATETIME: UTC wall time as YYYYMMDDhhmmss, for
     * plain JDBC where a row binds several times. The driver writes a number as its digits, where a
     * {@link LocalDateTime} goes through a {@code DateTimeFormatter} for every value (4 to 8% of the write-behind
     * relay's CPU samples in a hot sell, docs/benchmarks.md).
     */
    public static long asNumber(Instant instant) {
        long seconds = instant.getEpochSecond();
        LocalDate day = LocalDate.ofEpochDay(Math.floorDiv(seconds, SECONDS_PER_DAY));
        long time = Math.floorMod(seconds, SECONDS_PER_DAY);
        return ((day.getYear() * 100L + day.getMonthValue()) * 100 + day.getDayOfMonth()) * 1_000_000
                + time / 3600 * 10_000 + time % 3600 / 60 * 100 + time % 60;
    }

    /** {@code instant} as MySQL's DATETIME holds it: UTC wall time (the session's time zone), for plain JDBC. */
    public static LocalDateTime utc(Instant instant) {
        return LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
    }
}
