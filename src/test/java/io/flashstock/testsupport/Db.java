package io.flashstock.testsupport;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Plain JDBC to the same MySQL the service uses, for assertions that must not go through the service
 * (works for @QuarkusTest and for @QuarkusIntegrationTest alike).
 */
public final class Db {

    private Db() {
    }

    public static Connection connect() {
        return connect(LocalServersResource.jdbcUrl());
    }

    /** A connection to another database on the tests' MySQL server ({@link #database}), as the tests' user. */
    public static Connection connect(String jdbcUrl) {
        try {
            return DriverManager.getConnection(jdbcUrl, LocalServersResource.username(),
                    LocalServersResource.password());
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The JDBC URL of database {@code name} (created on first use) on the tests' MySQL server: for a test class that
     * keeps out of {@code flashstock_test}, which every other class shares.
     */
    public static String database(String name) {
        return database(LocalServersResource.jdbcUrl(), name);
    }

    /**
     * {@link #database(String)}, emptied first: the database is dropped and created again. For a class whose checks
     * count everything its servers do (events published, rows of every item), which leftovers of an earlier run, say
     * reservations that expired since and wait to be told, would add to. Only for a database the class owns.
     */
    public static String freshDatabase(String name) {
        return freshDatabase(LocalServersResource.jdbcUrl(), name);
    }

    /** {@link #database(String, String)}, dropped and created again (see {@link #freshDatabase(String)}). */
    public static String freshDatabase(String jdbcUrl, String name) {
        if (!name.matches("flashstock_test_[a-z0-9_]+")) {
            throw new IllegalArgumentException("not a test database of its own: " + name);
        }
        String url = database(jdbcUrl, name);
        try (Connection db = connect(url); Statement statement = db.createStatement()) {
            statement.execute("DROP DATABASE " + name);
            statement.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return url;
    }

    /** {@code jdbcUrl} with database {@code name} instead of its own (created on first use). */
    public static String database(String jdbcUrl, String name) {
        String url = jdbcUrl;
        int host = url.indexOf("//") + 2;
        int query = url.indexOf('?', host);
        String options = query < 0 ? "" : url.substring(query + 1);
        String base = query < 0 ? url : url.substring(0, query);
        int path = base.indexOf('/', host);
        String server = path < 0 ? base : base.substring(0, path);
        return server + "/" + name + "?" + (options.contains("createDatabaseIfNotExist") ? options
                : "createDatabaseIfNotExist=true" + (options.isEmpty() ? "" : "&" + options));
    }

    /** The item's row: stock, available, reserved, sold, per_user_limit, version. */
    public static Map<String, Long> item(String sku) {
        return row("SELECT stock, available, reserved, sold, per_user_limit, version FROM item WHERE sku = ?", sku);
    }

    /** The sums of the item's movement ledger, by counter (stock, available, reserved, sold), and its row count. */
    public static Map<String, Long> ledger(String sku) {
        return row("SELECT COALESCE(SUM(stock_delta), 0) AS stock, COALESCE(SUM(available_delta), 0) AS available,"
                + " COALESCE(SUM(reserved_delta), 0) AS reserved, COALESCE(SUM(sold_delta), 0) AS sold,"
                + " COUNT(*) AS movements FROM movement WHERE sku = ?", sku);
    }

    /** Orders of an item per status, and {@code units:<STATUS>} sums. */
    public static Map<String, Long> orders(String sku) {
        Map<String, Long> counts = new LinkedHashMap<>();
        try (Connection c = connect();
                PreparedStatement s = c.prepareStatement("SELECT status, COUNT(*), SUM(quantity) FROM purchase_order"
                        + " WHERE sku = ? GROUP BY status")) {
            s.setString(1, sku);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    counts.put(rs.getString(1), rs.getLong(2));
                    counts.put("units:" + rs.getString(1), rs.getLong(3));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return counts;
    }

    public static long orderCount(String sku) {
        return orders(sku).entrySet().stream().filter(e -> !e.getKey().startsWith("units:"))
                .mapToLong(Map.Entry::getValue).sum();
    }

    /** Ids of the item's orders, any status. */
    public static List<String> orderIds(String sku) {
        return strings("SELECT id FROM purchase_order WHERE sku = ?", sku);
    }

    /** The first column of every row a query returns, as strings. */
    public static List<String> strings(String sql, Object... params) {
        try (Connection c = connect()) {
            return strings(c, sql, params);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The first column of every row, as strings, on {@code connection}. */
    public static List<String> strings(Connection c, String sql, Object... params) {
        List<String> values = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(sql)) {
            bind(s, params);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    values.add(rs.getString(1));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return values;
    }

    public static long count(String sql, Object... params) {
        try (Connection c = connect()) {
            return count(c, sql, params);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The first column of the first row, on {@code connection} (another database's, {@link #connect(String)}). */
    public static long count(Connection connection, String sql, Object... params) {
        return row(connection, sql, params).values().iterator().next();
    }

    /** The oldest order of a user for an item. */
    public static String firstOrderOf(String sku, String userId) {
        try (Connection c = connect();
                PreparedStatement s = c.prepareStatement("SELECT id FROM purchase_order WHERE sku = ? AND user_id = ?"
                        + " ORDER BY id LIMIT 1")) {
            s.setString(1, sku);
            s.setString(2, userId);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Makes a reservation due now, as if its TTL had passed. */
    public static void makeDue(String orderId) {
        int changed = update("UPDATE purchase_order SET expires_at = UTC_TIMESTAMP(6) - INTERVAL 1 SECOND WHERE id = ?",
                orderId);
        if (changed != 1) {
            throw new IllegalStateException("order " + orderId + " is not in MySQL");
        }
    }

    /** Moves a RESERVED order's expiry to {@code seconds} from now (MySQL's clock, which the expiry job uses). */
    public static void expireIn(String orderId, int seconds) {
        int changed = update("UPDATE purchase_order SET expires_at = UTC_TIMESTAMP(6) + INTERVAL ? SECOND WHERE id = ?",
                seconds, orderId);
        if (changed != 1) {
            throw new IllegalStateException("order " + orderId + " is not in MySQL");
        }
    }

    /**
     * A transaction of the test's own, left open: what it writes holds its row locks until the test commits, as a
     * writer of the service would while it commits (the other writer's side of a race).
     */
    public static Connection begin() {
        Connection c = connect();
        try {
            c.setAutoCommit(false);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return c;
    }

    /** One statement in {@code transaction} (from {@link #begin()}); returns the rows it changed. */
    public static int update(Connection transaction, String sql, Object... params) {
        try (PreparedStatement s = transaction.prepareStatement(sql)) {
            bind(s, params);
            return s.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Waits (up to {@code millis}) until some transaction waits for a row lock: the service's side of a race reached
     * the rows a transaction of {@link #begin()} holds. Polled every 250 ms: polling {@code INNODB_TRX} much faster
     * kept the waiting statement from showing up at all here.
     */
    public static boolean awaitLockWait(long millis) {
        long deadline = System.currentTimeMillis() + millis;
        while (true) {
            if (count("SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'") > 0) {
                return true;
            }
            if (System.currentTimeMillis() > deadline) {
                return false;
            }
            Pause.sleep(250);
        }
    }

    public static int update(String sql, Object... params) {
        try (Connection c = connect(); PreparedStatement s = c.prepareStatement(sql)) {
            bind(s, params);
            return s.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, Long> row(String sql, Object... params) {
        try (Connection c = connect()) {
            return row(c, sql, params);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, Long> row(Connection c, String sql, Object... params) {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            bind(s, params);
            try (ResultSet rs = s.executeQuery()) {
                Map<String, Long> row = new LinkedHashMap<>();
                if (rs.next()) {
                    for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                        row.put(rs.getMetaData().getColumnLabel(i), rs.getLong(i));
                    }
                }
                return row;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void bind(PreparedStatement s, Object... params) throws SQLException {
        for (int i = 0; i < params.length; i++) {
            s.setObject(i + 1, params[i]);
        }
    }
}
