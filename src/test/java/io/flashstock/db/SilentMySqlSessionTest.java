package io.flashstock.db;

import static io.flashstock.testsupport.Shop.buy;
import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.agroal.api.AgroalDataSource;
import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.Lane;
import io.flashstock.testsupport.LocalServersResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A pod lost in the middle of a transaction (its node gone, its process stopped) leaves MySQL a session that says
 * nothing more, holding the rows it locked. MySQL closes such a session after the service's {@code wait_timeout}
 * (30 s, application.properties), not after its own default of 8 hours, and the pool replaces the connections MySQL
 * closed meanwhile before handing them out. Full lane: the test waits the 30 s out.
 */
@Tag(Lane.FULL_TAG)
@QuarkusTest
@TestProfile(StrategyProfiles.DbOptimistic.class)
@WithTestResource(LocalServersResource.class)
class SilentMySqlSessionTest {

    private static final int WAIT_TIMEOUT_SECONDS = 30;
    /** More than the pool's minimum, so that connections sit idle in it while the silent session waits. */
    private static final int CONNECTIONS = 8;

    @Inject
    AgroalDataSource pool;

    /**
     * A pooled connection locks an item's row (as the relay or a purchase does) and falls silent. Another session's
     * lock on that row waits while the silent session lives, and gets it once MySQL closed that session, within the
     * wait_timeout and a few seconds. Meanwhile the pool's other connections sat idle for longer than that; each of
     * them then answers, and a purchase of the item (db-optimistic: an update of that row) is 201.
     */
    @Test
    void aSilentSessionLosesItsLocksWithinTheWaitTimeoutAndThePoolStillServes() throws Exception {
        String sku = newSku("silent");
        createItem(sku, 10, 0);
        queryEach(takeAtOnce()); // the pool now holds at least CONNECTIONS connections, idle from here on

        Connection silent = pool.getConnection();
        try {
            assertEquals(WAIT_TIMEOUT_SECONDS, variable(silent, "wait_timeout"));
            assertEquals(3, variable(silent, "innodb_lock_wait_timeout"));
            silent.setAutoCommit(false);
            lockItem(silent, sku);
            long start = System.nanoTime();
            try (Connection other = Db.connect()) {
                other.setAutoCommit(false);
                lockOnceFree(other, sku, Duration.ofSeconds(WAIT_TIMEOUT_SECONDS + 15));
                other.rollback();
            }
            long waited = Duration.ofNanos(System.nanoTime() - start).toSeconds();
            assertTrue(waited >= WAIT_TIMEOUT_SECONDS - 2, "the row was free after " + waited + " s");
            assertThrows(SQLException.class, () -> lockItem(silent, sku), "MySQL closed the silent session");
        } finally {
            closeQuietly(silent);
        }

        queryEach(takeAtOnce());
        buy(sku, "silent-buyer", 1);
    }

    private List<Connection> takeAtOnce() throws SQLException {
        List<Connection> taken = new ArrayList<>();
        for (int i = 0; i < CONNECTIONS; i++) {
            taken.add(pool.getConnection());
        }
        return taken;
    }

    /** Each connection answers a query (a connection MySQL closed would throw), then goes back to the pool. */
    private static void queryEach(List<Connection> connections) throws SQLException {
        try {
            for (Connection connection : connections) {
                assertEquals(WAIT_TIMEOUT_SECONDS, variable(connection, "wait_timeout"));
            }
        } finally {
            connections.forEach(SilentMySqlSessionTest::closeQuietly);
        }
    }

    private static int variable(Connection connection, String name) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT @@session." + name)) {
            row.next();
            return row.getInt(1);
        }
    }

    private static void lockItem(Connection connection, String sku) throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement("SELECT stock FROM item WHERE sku = ? FOR UPDATE")) {
            lock.setString(1, sku);
            try (ResultSet row = lock.executeQuery()) {
                assertTrue(row.next());
            }
        }
    }

    /** Locks the item's row, trying again after each lock wait that timed out (1205), until {@code within}. */
    private static void lockOnceFree(Connection connection, String sku, Duration within) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET SESSION innodb_lock_wait_timeout = 1");
        }
        long deadline = System.nanoTime() + within.toNanos();
        while (true) {
            try {
                lockItem(connection, sku);
                return;
            } catch (SQLException e) {
                if (e.getErrorCode() != 1205 || System.nanoTime() > deadline) {
                    throw e;
                }
                connection.rollback();
            }
        }
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException e) {
            // a connection MySQL closed: the pool drops it
        }
    }
}
