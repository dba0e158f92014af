package io.flashstock.deduction;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Set;

import jakarta.persistence.OptimisticLockException;
import org.hibernate.StaleStateException;
import org.hibernate.exception.JDBCConnectionException;

/**
 * Sorts database failures into the ones a new transaction may cure (conflicts) and the ones that mean the
 * database cannot be reached (unavailable). Walks the whole cause chain: Hibernate, Agroal and Narayana wrap.
 */
public final class DbErrors {

    /** MariaDB/MySQL: 1020 record changed since last read (snapshot isolation), 1205 lock wait, 1213 deadlock. */
    private static final Set<Integer> CONFLICT_ERROR_CODES = Set.of(1020, 1205, 1213);
    /** 1062 duplicate key: a concurrent request took the same unique value first. */
    public static final int DUPLICATE_KEY = 1062;

    private DbErrors() {
    }

    /** An optimistic or locking conflict: retry in a new transaction. */
    public static boolean isConflict(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof OptimisticLockException || t instanceof StaleStateException) {
                return true;
            }
            if (t instanceof SQLException sql
                    && (CONFLICT_ERROR_CODES.contains(sql.getErrorCode()) || "40001".equals(sql.getSQLState()))) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /** MariaDB 4025 / MySQL 3819: a CHECK constraint refused the change (for flashstock: not enough units). */
    private static final Set<Integer> CHECK_VIOLATION_CODES = Set.of(4025, 3819);

    /** A CHECK constraint violation anywhere in the chain. */
    public static boolean isCheckViolation(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && CHECK_VIOLATION_CODES.contains(sql.getErrorCode())) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /** A unique-key violation anywhere in the chain. */
    public static boolean isDuplicateKey(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getErrorCode() == DUPLICATE_KEY) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /** The database cannot be reached or no connection was free in time. */
    public static boolean isUnavailable(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof JDBCConnectionException || t instanceof SQLTransientConnectionException) {
                return true;
            }
            if (t instanceof SQLException sql) {
                String state = sql.getSQLState();
                String message = sql.getMessage();
                if ((state != null && state.startsWith("08"))
                        || (message != null && message.contains("Acquisition timeout"))) {
                    return true;
                }
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }
}
