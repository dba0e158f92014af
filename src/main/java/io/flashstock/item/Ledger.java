package io.flashstock.item;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

import io.flashstock.db.MultiRowInsert;
import io.flashstock.support.Timestamps;
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
    private static final int ACTOR_LENGTH = 64;

    private Ledger() {
    }

    /** What moved the counters; {@link #wire} is the {@code kind} column and the API's value. */
    public enum Kind {
        CREATED("created"), RESTOCK("restock"), STOCK_SET("stock-set"), RESERVE("reserve"), CONFIRM("confirm"),
        CANCEL("cancel"), EXPIRE("expire"), RETIRE("retire"), SALE_WINDOW("sale-window"), CORRECTION("correction");

        public final String wire;

        Kind(String wire) {
            this.wire = wire;
        }
    }

    /**
     * One movement: what {@code kind} added to each counter of {@code sku} (negative when it took away), the order
     * (a restock's id for a restock) and purchase it belongs to, who did it, and when.
     */
    public record Entry(String sku, Kind kind, int stockDelta, int availableDelta, int reservedDelta, int soldDelta,
            String orderId, String purchaseId, String actor, Instant at) {

        /** An order took units: available to reserved. */
        public static Entry reserve(String sku, int units, String orderId, String purchaseId, String actor,
                Instant at) {
            return new Entry(sku, Kind.RESERVE, 0, -units, units, 0, orderId, purchaseId, actor, at);
        }

        /** An order's units went from reserved to sold (confirm) or back to available (cancel, expire). */
        public static Entry settled(String sku, Kind kind, int units, String orderId, String purchaseId,
                String actor, Instant at) {
            boolean sold = kind == Kind.CONFIRM;
            return new Entry(sku, kind, 0, sold ? 0 : units, -units, sold ? units : 0, orderId, purchaseId, actor,
                    at);
        }

        /** Stock and available moved together (created, restock, stock-set); {@code ref}: a restock's id. */
        public static Entry stock(String sku, Kind kind, int delta, String ref, String actor, Instant at) {
            return new Entry(sku, kind, delta, delta, 0, 0, ref, null, actor, at);
        }

        /** An admin action that moved no counter (sale-window, retire): every delta 0. */
        public static Entry mark(String sku, Kind kind, String actor, Instant at) {
            return new Entry(sku, kind, 0, 0, 0, 0, null, null, actor, at);
        }
    }

    private static final MultiRowInsert<Entry> INSERT = new MultiRowInsert<>("INSERT INTO movement (sku, kind,"
            + " stock_delta, available_delta, reserved_delta, sold_delta, order_id, purchase_id, actor, created_at)"
            + " VALUES ", "(?,?,?,?,?,?,?,?,?,?)", (statement, column, entry) -> {
                statement.setString(++column, entry.sku());
                statement.setString(++column, entry.kind().wire);
                statement.setInt(++column, entry.stockDelta());
                statement.setInt(++column, entry.availableDelta());
                statement.setInt(++column, entry.reservedDelta());
                statement.setInt(++column, entry.soldDelta());
                statement.setString(++column, entry.orderId());
                statement.setString(++column, entry.purchaseId());
                statement.setString(++column, actor(entry.actor()));
                statement.setObject(++column, Timestamps.utc(entry.at()));
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

    /** Appends {@code entries} on {@code connection}: for writers already in a JDBC connection of the transaction. */
    public static void write(Connection connection, List<Entry> entries) throws SQLException {
        INSERT.insert(connection, entries);
    }

    /** The longest statement the ledger sends (it must fit {@code prepStmtCacheSqlLimit}). */
    public static String longestInsert() {
        return INSERT.longest();
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
