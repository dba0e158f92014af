package io.flashstock.db;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;

import jakarta.persistence.OptimisticLockException;
import jakarta.persistence.PersistenceException;
import org.junit.jupiter.api.Test;

/** Failure classification without a database: wrapped, suppressed and looping chains. */
class DbErrorsTest {

    @Test
    void conflictsAreFoundUnderWrappers() {
        assertTrue(DbErrors.isConflict(new PersistenceException(new SQLException("deadlock", "40001", 1213))));
        assertTrue(DbErrors.isConflict(new PersistenceException(new SQLException("changed", "HY000", 1020))));
        assertTrue(DbErrors.isConflict(new RuntimeException(new OptimisticLockException("stale"))));
        assertFalse(DbErrors.isConflict(new PersistenceException(new SQLException("syntax", "42000", 1064))));
    }

    @Test
    void aLostCommitCarriedAsSuppressedIsUnavailable() {
        // Narayana reports a commit whose connection broke as a RollbackException with the driver's failure
        // suppressed, not as its cause.
        RuntimeException rollback = new RuntimeException("ARJUNA016053: Could not commit transaction.");
        rollback.addSuppressed(new SQLException("Communications link failure", "08S01", 0));
        assertTrue(DbErrors.isUnavailable(rollback));
        assertTrue(DbErrors.isUnavailable(new PersistenceException(
                new SQLException("Sorry, acquisition timeout!", "HY000", 0))));
        assertTrue(DbErrors.isUnavailable(new PersistenceException(
                new SQLException("No operations allowed after statement closed.", "S1009", 0))));
        // Agroal, once the pool discarded a broken connection: on a statement, and on a commit (XAException cause)
        assertTrue(DbErrors.isUnavailable(new PersistenceException(new SQLException("Connection is closed"))));
        Exception commit = new Exception("commit failed");
        commit.addSuppressed(new Exception("Error trying to commit local transaction",
                new SQLException("Connection is closed")));
        assertTrue(DbErrors.isUnavailable(commit));
        assertFalse(DbErrors.isUnavailable(new PersistenceException(new SQLException("Table is closed", "HY000",
                1000))));
        assertFalse(DbErrors.isUnavailable(new PersistenceException(new SQLException("dup", "23000", 1062))));
    }

    @Test
    void constraintRefusalsAreNamed() {
        PersistenceException check = new PersistenceException(
                new SQLIntegrityConstraintViolationException("CONSTRAINT `available` failed", "23000", 4025));
        assertTrue(DbErrors.isSoldOut(check));
        assertFalse(DbErrors.isDuplicateKey(check));
        PersistenceException duplicate = new PersistenceException(
                new SQLIntegrityConstraintViolationException("Duplicate entry", "23000", 1062));
        assertTrue(DbErrors.isDuplicateKey(duplicate));
        assertFalse(DbErrors.isSoldOut(duplicate));
    }

    @Test
    void aLoopingChainEnds() {
        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b", a);
        a.initCause(b);
        a.addSuppressed(b);
        assertFalse(DbErrors.isConflict(a));
        assertFalse(DbErrors.isUnavailable(a));
    }
}
