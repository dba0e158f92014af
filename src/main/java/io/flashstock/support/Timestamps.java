package io.flashstock.support;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/**
 * Times stored with orders and items, in whole seconds: MySQL Connector/J drops fractional seconds against a
 * server that reports a 5.5-style version (as MariaDB does), so an answer given before the write and the same
 * order read back later (idempotent replay, GET) would otherwise disagree.
 */
public final class Timestamps {

    private Timestamps() {
    }

    public static Instant now() {
        return Instant.now().truncatedTo(ChronoUnit.SECONDS);
    }

    /** {@code instant} as MySQL's DATETIME holds it: UTC wall time (the session's time zone), for plain JDBC. */
    public static LocalDateTime utc(Instant instant) {
        return LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
    }
}
