package io.flashstock.db;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Locale;
import java.util.Set;

import io.flashstock.support.Causes;
import jakarta.persistence.OptimisticLockException;
import org.hibernate.StaleStateException;
import org.hibernate.exception.JDBCConnectionException;

/**
 * Sorts database failures: the ones a new transaction may cure (conflicts), the ones that mean the database cannot
 * be reached (unavailable), and the two constraint refusals flashstock relies on. Looks at everything a failure
 * carries ({@link Causes}): Hibernate, Agroal and Narayana wrap, and a failed commit arrives as a suppressed
 * exception.
 */
public final class DbErrors {

    /** MariaDB/MySQL: 1020 record changed since last read (snapshot isolation), 1205 lock wait, 1213 deadlock. */
    private static final Set<Integer> CONFLICT_ERROR_CODES = Set.of(1020, 1205, 1213);
    /** 1062 duplicate key: a concurrent request took the same unique value first. */
    private static final int DUPLICATE_KEY = 1062;
    /** MariaDB 4025 / MySQL 3819: a CHECK constraint refused the change. */
    private static final Set<Integer> CHECK_VIOLATION_CODES = Set.of(4025, 3819);

    private DbErrors() {
    }

    /** An optimistic or locking conflict: retry in a new transaction. */
    public static boolean isConflict(Throwable error) {
        return Causes.any(error, t -> t instanceof OptimisticLockException || t instanceof StaleStateException
                || t instanceof SQLException sql
                        && (CONFLICT_ERROR_CODES.contains(sql.getErrorCode()) || "40001".equals(sql.getSQLState())));
    }

    /**
     * The item's {@code CHECK (available >= 0)} refused the change: MySQL has not the units, the item is sold out
     * as far as the system of record is concerned (the only CHECK a purchase can break).
     */
    public static boolean isSoldOut(Throwable error) {
        return isCheckViolation(error);
    }

    /** A CHECK constraint refused the change (whichever: the caller knows which ones its change can break). */
    public static boolean isCheckViolation(Throwable error) {
        return Causes.any(error, t -> t instanceof SQLException sql
                && CHECK_VIOLATION_CODES.contains(sql.getErrorCode()));
    }

    /** A unique-key violation. */
    public static boolean isDuplicateKey(Throwable error) {
        return Causes.any(error, t -> t instanceof SQLException sql && sql.getErrorCode() == DUPLICATE_KEY);
    }

    /**
     * The database cannot be reached, or no connection was free in time, or the connection a statement ran on was
     * closed under it because it broke: Connector/J's "No operations allowed after statement closed" (a state that
     * is not in class 08), or Agroal's "Connection is closed" (also "Statement is closed", "ResultSet is closed"...,
     * without any SQL state) once the pool has discarded a connection another statement on it found broken. A
     * transaction can meet the latter on its next statement or on its commit, so it counts as a lost answer like
     * any other broken link.
     */
    public static boolean isUnavailable(Throwable error) {
        return Causes.any(error, t -> t instanceof JDBCConnectionException
                || t instanceof SQLTransientConnectionException
                || t instanceof SQLException sql && (startsWith(sql.getSQLState(), "08")
                        || containsIgnoreCase(sql.getMessage(), "acquisition timeout")
                        || startsWith(sql.getMessage(), "No operations allowed after")
                        || sql.getSQLState() == null && endsWith(sql.getMessage(), " is closed")));
    }

    private static boolean endsWith(String value, String suffix) {
        return value != null && value.endsWith(suffix);
    }

    private static boolean startsWith(String value, String prefix) {
        return value != null && value.startsWith(prefix);
    }

    /** Agroal: "Sorry, acquisition timeout!" when no connection was free within the acquisition timeout. */
    private static boolean containsIgnoreCase(String value, String part) {
        return value != null && value.toLowerCase(Locale.ROOT).contains(part);
    }
}
