package io.flashstock.events;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;

import org.hibernate.Session;
import org.hibernate.jdbc.ReturningWork;

/**
 * The outbox's tables ({@code V12__event_outbox.sql}) and the ledger, as the publisher reads and moves them. Every
 * method runs in the caller's transaction (READ COMMITTED: each statement sees what was committed before it).
 */
@ApplicationScoped
class OutboxStore {

    /** An item with movements that may not be published yet, and its count of ledger writes when read. */
    record Pending(String sku, long touched) {
    }

    /** Where an item's publishing stands: the last movement published, and the counters right after it. */
    record Cursor(long movementId, ItemCounters counters) {
        static final Cursor START = new Cursor(0, ItemCounters.NONE);
    }

    private final EntityManager em;

    OutboxStore(EntityManager em) {
        this.em = em;
    }

    /**
     * How long MySQL keeps a session of the pool that says nothing ({@code wait_timeout}, set for the pool's sessions
     * in application.properties): a round waiting for the broker that long loses its buckets' locks and its work.
     */
    Duration sessionIdleLimit() {
        return jdbc(connection -> {
            try (PreparedStatement statement = connection.prepareStatement("SELECT @@session.wait_timeout");
                    ResultSet r = statement.executeQuery()) {
                r.next();
                return Duration.ofSeconds(r.getLong(1));
            }
        });
    }

    /** The buckets that have pending items (no lock). */
    List<Integer> bucketsWithWork() {
        return jdbc(connection -> {
            try (PreparedStatement statement = connection.prepareStatement(
                    "SELECT DISTINCT bucket FROM event_pending")) {
                return buckets(statement);
            }
        });
    }

    /**
     * Locks those of {@code buckets} no other publisher holds, until the transaction ends, and answers them: what makes
     * one pod at a time publish an item's events.
     */
    List<Integer> lock(Collection<Integer> buckets) {
        return jdbc(connection -> {
            try (PreparedStatement statement = connection.prepareStatement("SELECT bucket FROM event_bucket WHERE"
                    + " bucket IN (" + placeholders(buckets.size()) + ") ORDER BY bucket FOR UPDATE SKIP LOCKED")) {
                bind(statement, 1, buckets);
                return buckets(statement);
            }
        });
    }

    /** Up to {@code limit} pending items of the locked {@code buckets}, by sku. */
    List<Pending> pending(Collection<Integer> buckets, int limit) {
        return jdbc(connection -> {
            try (PreparedStatement statement = connection.prepareStatement("SELECT sku, touched FROM event_pending"
                    + " WHERE bucket IN (" + placeholders(buckets.size()) + ") ORDER BY sku LIMIT ?")) {
                statement.setInt(bind(statement, 1, buckets), limit);
                List<Pending> pending = new ArrayList<>();
                try (ResultSet r = statement.executeQuery()) {
                    while (r.next()) {
                        pending.add(new Pending(r.getString(1), r.getLong(2)));
                    }
                }
                return pending;
            }
        });
    }

    Cursor cursor(String sku) {
        return jdbc(connection -> {
            try (PreparedStatement statement = connection.prepareStatement("SELECT movement_id, stock, available,"
                    + " reserved, sold FROM event_cursor WHERE sku = ?")) {
                statement.setString(1, sku);
                try (ResultSet r = statement.executeQuery()) {
                    return r.next() ? new Cursor(r.getLong(1), new ItemCounters(r.getInt(2), r.getInt(3),
                            r.getInt(4), r.getInt(5))) : Cursor.START;
                }
            }
        });
    }

    /**
     * The item's movements after {@code afterId}, oldest first, at most {@code limit}, with their orders' details.
     * A busy item's round reads up to {@code batch-size} rows: Hibernate's native-query mapping of them cost the
     * publisher more than the rest of its round.
     */
    List<OutboxMovement> movements(String sku, long afterId, int limit) {
        return jdbc(connection -> {
            List<OutboxMovement> movements = new ArrayList<>();
            try (PreparedStatement statement = connection.prepareStatement(MOVEMENTS)) {
                statement.setString(1, sku);
                statement.setLong(2, afterId);
                statement.setInt(3, limit);
                try (ResultSet r = statement.executeQuery()) {
                    while (r.next()) {
                        int units = r.getInt(12);
                        Integer quantity = r.wasNull() ? null : units; // no order: a movement of the item
                        movements.add(new OutboxMovement(r.getLong(1), sku, r.getString(2), r.getInt(3),
                                r.getInt(4), r.getInt(5), r.getInt(6), r.getString(7), r.getString(8),
                                r.getString(9), instant(r.getLong(10)), r.getString(11),
                                quantity, instant(r, 13)));
                    }
                }
            }
            return movements;
        });
    }

    private static final String MOVEMENTS = "SELECT m.id, m.kind, m.stock_delta, m.available_delta, m.reserved_delta,"
            + " m.sold_delta, m.order_id, m.purchase_id, m.actor, " + micros("m.created_at") + ", o.user_id,"
            + " o.quantity, " + micros("o.expires_at") + " FROM movement m LEFT JOIN purchase_order o"
            + " ON o.id = m.order_id AND m.kind IN ('reserve', 'confirm', 'cancel', 'expire', 'extend')"
            + " WHERE m.sku = ? AND m.id > ? ORDER BY m.id LIMIT ?";

    /** Records that the item's events up to {@code cursor} were acknowledged by the broker. */
    void advance(String sku, Cursor cursor) {
        ItemCounters c = cursor.counters();
        jdbc(connection -> {
            try (PreparedStatement statement = connection.prepareStatement("INSERT INTO event_cursor (sku,"
                    + " movement_id, stock, available, reserved, sold) VALUES (?, ?, ?, ?, ?, ?)"
                    + " ON DUPLICATE KEY UPDATE movement_id = VALUES(movement_id), stock = VALUES(stock),"
                    + " available = VALUES(available), reserved = VALUES(reserved), sold = VALUES(sold)")) {
                statement.setString(1, sku);
                statement.setLong(2, cursor.movementId());
                statement.setInt(3, c.stock());
                statement.setInt(4, c.available());
                statement.setInt(5, c.reserved());
                statement.setInt(6, c.sold());
                return statement.executeUpdate();
            }
        });
    }

    /**
     * Drops the item's pending mark if no ledger write touched it since it was read: a write that came in between
     * counted {@code touched} up, and keeps the mark for the next round.
     */
    void release(Pending pending) {
        jdbc(connection -> {
            try (PreparedStatement statement = connection.prepareStatement("DELETE FROM event_pending WHERE sku = ?"
                    + " AND touched = ?")) {
                statement.setString(1, pending.sku());
                statement.setLong(2, pending.touched());
                return statement.executeUpdate();
            }
        });
    }

    /** Unpublished movements and the time of the oldest, over every pending item (for metrics; not locking). */
    Backlog backlog() {
        // the count reads only the (sku, id) index; the oldest reads one row per pending item, its first unpublished
        Object[] row = (Object[]) em.createNativeQuery("SELECT COUNT(m.id), (SELECT " + micros("MIN(f.created_at)")
                + " FROM event_pending fp JOIN movement f ON f.id = (SELECT MIN(n.id) FROM movement n WHERE n.sku = fp.sku"
                + " AND n.id > " + CURSOR.formatted("fp") + "))"
                + " FROM event_pending p JOIN movement m ON m.sku = p.sku AND m.id > " + CURSOR.formatted("p"))
                .getSingleResult();
        return new Backlog(number(row[0]), row[1] == null ? null : instant(number(row[1])));
    }

    /** The last published movement of the pending item aliased %s (0: none yet). */
    private static final String CURSOR = "COALESCE((SELECT c.movement_id FROM event_cursor c WHERE c.sku = %1$s.sku), 0)";

    record Backlog(long movements, Instant oldest) {
    }

    /**
     * {@code work} on the transaction's JDBC connection. The publisher's statements go straight to the driver: a
     * round runs several times a second under a sale, and Hibernate's parsing and mapping of a native query cost more
     * than the statement itself.
     */
    private <T> T jdbc(ReturningWork<T> work) {
        return em.unwrap(Session.class).doReturningWork(work);
    }

    private static String placeholders(int count) {
        return String.join(", ", java.util.Collections.nCopies(count, "?"));
    }

    /** Binds {@code values} from parameter {@code first} on; answers the next parameter's index. */
    private static int bind(PreparedStatement statement, int first, Collection<Integer> values) throws SQLException {
        int index = first;
        for (int value : values) {
            statement.setInt(index++, value);
        }
        return index;
    }

    private static List<Integer> buckets(PreparedStatement statement) throws SQLException {
        List<Integer> buckets = new ArrayList<>();
        try (ResultSet r = statement.executeQuery()) {
            while (r.next()) {
                buckets.add(r.getInt(1));
            }
        }
        return buckets;
    }

    private static long number(Object value) {
        return ((Number) value).longValue();
    }

    /**
     * A DATETIME column as microseconds since the epoch: the columns hold UTC wall time (the session's time zone is
     * UTC), and TIMESTAMPDIFF counts from the epoch's wall time without any time zone, so neither the session's nor
     * the driver's conversions reach it. A number is also far cheaper to read than a date or text.
     */
    private static String micros(String column) {
        return "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', " + column + ")";
    }

    private static Instant instant(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
    }

    /** Column {@code column} of {@link #micros} as an instant, or null. */
    private static Instant instant(ResultSet row, int column) throws SQLException {
        long micros = row.getLong(column);
        return row.wasNull() ? null : instant(micros);
    }
}
