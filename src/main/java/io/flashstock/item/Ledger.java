package io.flashstock.item;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import io.flashstock.db.MultiRowInsert;
import org.hibernate.Session;

/**
 * The movement ledger ({@code V11__movement.sql}): the one place that writes its rows. Every change of an item's
 * counters appends one row in the change's own transaction, so that an item's sums of deltas always equal its
 * counters; admin actions that change no counter (a sale window, a retirement) append one with every delta 0. Rows are
 * never updated or deleted.
 *
 * <p>Rows go in as multi-row JDBC INSERTs ({@link MultiRowInsert}): on the hot path the reserve rows of a batch of
 * orders ride in the orders' own connection and statements of the same few shapes ({@code OrderWriter}), not one
 * Hibernate persist each.
 */
public final class Ledger {

    /** The actor of what no caller asked for: the expiry job, the write-behind relay, a reconcile. */
    public static final String SYSTEM = "system";
    /** The event publisher's buckets ({@code event_bucket}): an item's is {@code CRC32(sku) % 64}. */
    public static final int EVENT_BUCKETS = 64;
    private static final int ACTOR_LENGTH = 64;

    private Ledger() {
    }

    /** What moved the counters; {@link #wire} is the {@code kind} column and the API's value. */
    public enum Kind {
        CREATED("created"), RESTOCK("restock"), STOCK_SET("stock-set"), RESERVE("reserve"), CONFIRM("confirm"),
        CANCEL("cancel"), EXPIRE("expire"), EXTEND("extend"), RETIRE("retire"), SALE_WINDOW("sale-window"),
        CORRECTION("correction");

        public final String wire;

        Kind(String wire) {
            this.wire = wire;
        }
    }

    /**
     * One movement: what {@code kind} added to each counter of {@code sku} (negative when it took away), the order
     * (a restock's id for a restock) and purchase it belongs to, and who did it. Its time is when the ledger writes
     * it, to the microsecond ({@link #write}): the event publisher's lag is measured from it.
     */
    public record Entry(String sku, Kind kind, int stockDelta, int availableDelta, int reservedDelta, int soldDelta,
            String orderId, String purchaseId, String actor) {

        /** An order took units: available to reserved. */
        public static Entry reserve(String sku, int units, String orderId, String purchaseId, String actor) {
            return new Entry(sku, Kind.RESERVE, 0, -units, units, 0, orderId, purchaseId, actor);
        }

        /** An order's units went from reserved to sold (confirm) or back to available (cancel, expire). */
        public static Entry settled(String sku, Kind kind, int units, String orderId, String purchaseId,
                String actor) {
            boolean sold = kind == Kind.CONFIRM;
            return new Entry(sku, kind, 0, sold ? 0 : units, -units, sold ? units : 0, orderId, purchaseId, actor);
        }

        /** Stock and available moved together (created, restock, stock-set); {@code ref}: a restock's id. */
        public static Entry stock(String sku, Kind kind, int delta, String ref, String actor) {
            return new Entry(sku, kind, delta, delta, 0, 0, ref, null, actor);
        }

        /** A reservation that now expires later: no counter moves. */
        public static Entry extend(String sku, String orderId, String purchaseId, String actor) {
            return new Entry(sku, Kind.EXTEND, 0, 0, 0, 0, orderId, purchaseId, actor);
        }

        /** An admin action that moved no counter (sale-window, retire): every delta 0. */
        public static Entry mark(String sku, Kind kind, String actor) {
            return new Entry(sku, kind, 0, 0, 0, 0, null, null, actor);
        }
    }

    private static final MultiRowInsert<Entry> INSERT = new MultiRowInsert<>("INSERT INTO movement (sku, kind,"
            + " stock_delta, available_delta, reserved_delta, sold_delta, order_id, purchase_id, actor, created_at)"
            + " VALUES ", "(?,?,?,?,?,?,?,?,?,NOW(6))", (statement, column, entry) -> { // UTC: the session's zone
                statement.setString(++column, entry.sku());
                statement.setString(++column, entry.kind().wire);
                statement.setInt(++column, entry.stockDelta());
                statement.setInt(++column, entry.availableDelta());
                statement.setInt(++column, entry.reservedDelta());
                statement.setInt(++column, entry.soldDelta());
                statement.setString(++column, entry.orderId());
                statement.setString(++column, entry.purchaseId());
                statement.setString(++column, actor(entry.actor()));
                return column;
            });

    /**
     * Reserve rows alone ({@link #writeReserves}): the constants of every reserve row are in the statement, and the
     * reserved delta is the available delta's negation (MySQL reads a column set earlier in the same row), so a row
     * binds its sku, units, order, purchase and actor only: the relay binds every one of its orders' values, and the
     * driver's work goes per bound value.
     */
    private static final MultiRowInsert<Entry> RESERVE_INSERT = new MultiRowInsert<>("INSERT INTO movement (sku,"
            + " kind, stock_delta, available_delta, reserved_delta, sold_delta, order_id, purchase_id, actor,"
            + " created_at) VALUES ", "(?,'" + Kind.RESERVE.wire + "',0,-?,-available_delta,0,?,?,?,NOW(6))",
            (statement, column, entry) -> {
                if (entry.kind() != Kind.RESERVE || entry.reservedDelta() != -entry.availableDelta()
                        || entry.stockDelta() != 0 || entry.soldDelta() != 0) {
                    throw new IllegalArgumentException("not a reserve row: " + entry);
                }
                statement.setString(++column, entry.sku());
                statement.setInt(++column, entry.reservedDelta());
                statement.setString(++column, entry.orderId());
                statement.setString(++column, entry.purchaseId());
                statement.setString(++column, actor(entry.actor()));
                return column;
            });

    /** Appends {@code entry} in the current transaction. */
    public static void record(Entry entry) {
        record(List.of(entry));
    }

    /** Appends {@code entries} in the current transaction, as multi-row INSERTs. */
    public static void record(List<Entry> entries) {
        if (!entries.isEmpty()) {
            Item.getEntityManager().unwrap(Session.class).doWork(connection -> write(connection, entries));
        }
    }

    /**
     * Marks an item as having movements to publish as events ({@code V12__event_outbox.sql}): one row per item,
     * counted up by every write, in the change's transaction, under the item's row lock the change already holds.
     */
    private static final MultiRowInsert<String> PENDING = new MultiRowInsert<>(
            "INSERT INTO event_pending (sku, bucket) VALUES ", "(?, CRC32(?) % " + EVENT_BUCKETS + ")",
            " ON DUPLICATE KEY UPDATE touched = touched + 1", (statement, column, sku) -> {
                statement.setString(++column, sku);
                statement.setString(++column, sku);
                return column;
            });

    /**
     * Appends {@code entries} on {@code connection}: for writers already in a JDBC connection of the transaction.
     * Their items are first marked for the event publisher, in sku order (as every multi-item change locks its items,
     * so two never wait for each other in a circle). The mark's row lock, held to the commit, comes before the rows
     * get their ids: two changes of one item take their ids in the order they commit, so the publisher, which
     * follows an item's movements by id, never passes one that commits later with a smaller id.
     */
    public static void write(Connection connection, List<Entry> entries) throws SQLException {
        MultiRowInsert.insert(connection, marks(entries), INSERT.rows(entries));
    }

    /**
     * As {@link #write(Connection, List)} for new orders' {@link Entry#reserve} rows, with {@code with} (the orders,
     * one per reserve row) in the same round trips: the marks, then each statement of {@code with} and its reserve
     * rows' statement together ({@link MultiRowInsert}), so the ledger and its marks cost no round trip of their own.
     * A reserve row binds five values, not nine ({@code RESERVE_INSERT}).
     */
    public static void writeReserves(Connection connection, MultiRowInsert.Rows<?> with, List<Entry> reserves)
            throws SQLException {
        MultiRowInsert.insert(connection, marks(reserves), with, RESERVE_INSERT.rows(reserves));
    }

    private static MultiRowInsert.Rows<String> marks(List<Entry> entries) {
        return PENDING.rows(entries.stream().map(Entry::sku).distinct().sorted().toList());
    }

    /**
     * The longest round trip of one item's new orders: its mark, {@code with} (the longest statement of its orders)
     * and the most reserve rows of one statement ({@link #writeReserves}). It must fit {@code prepStmtCacheSqlLimit},
     * so the driver parses it once.
     */
    public static String longestWith(String with) {
        return PENDING.shortest() + ";" + with + ";" + RESERVE_INSERT.longest();
    }

    /** The actor as the column holds it: printable ASCII, at most 64 characters; none is {@code unknown}. */
    static String actor(String actor) {
        if (actor == null || actor.isBlank()) {
            return "unknown";
        }
        StringBuilder kept = new StringBuilder(Math.min(actor.length(), ACTOR_LENGTH));
        for (int i = 0; i < actor.length() && kept.length() < ACTOR_LENGTH; i++) {
            char c = actor.charAt(i);
            kept.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return kept.toString();
    }
}
