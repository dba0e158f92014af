package io.flashstock.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Multi-row INSERTs of new rows over plain JDBC, in the caller's connection (its transaction), with few statement
 * shapes: each statement holds a power of two of rows, at most {@value #MAX_ROWS}, so n rows take at most n/128 + 7
 * statements of only 8 shapes, which the driver parses once per connection and keeps ({@code cachePrepStmts}; a
 * statement parsed anew for every batch size cost a quarter of the relay's CPU). The rows are written into the
 * statements here rather than left to the driver's batch rewrite ({@code rewriteBatchedStatements}), which encodes
 * every value once more to size its packets and copies every row's parameters.
 *
 * <p>Rows of several tables that belong together (orders and their ledger rows) go in the same round trips
 * ({@link #insert(Connection, Rows, Rows...)}): the driver sends several statements as one
 * ({@code allowMultiQueries}), and MySQL runs them in order, stopping at the first that fails.
 *
 * @param <T> a row
 */
public final class MultiRowInsert<T> {

    /** Most rows of one statement: a few KB, far below any max_allowed_packet. */
    public static final int MAX_ROWS = 128;

    /** Sets one row's parameters from {@code column + 1} on; returns the last column it set. */
    @FunctionalInterface
    public interface Binder<T> {
        int bind(PreparedStatement statement, int column, T row) throws SQLException;
    }

    /** Rows for one table: what {@link #insert(Connection, Rows, Rows...)} sends. */
    public record Rows<T>(MultiRowInsert<T> insert, List<T> rows) {
    }

    /** One statement's share of some {@link Rows}: its SQL and the rows it binds. */
    private record Piece<T>(MultiRowInsert<T> insert, List<T> rows) {

        String sql() {
            return insert.statements[Integer.numberOfTrailingZeros(rows.size())];
        }

        int bind(PreparedStatement statement, int column) throws SQLException {
            for (T row : rows) {
                column = insert.binder.bind(statement, column, row);
            }
            return column;
        }
    }

    private final String[] statements = new String[Integer.numberOfTrailingZeros(MAX_ROWS) + 1];
    private final Binder<T> binder;

    /**
     * @param head   {@code INSERT INTO t (a, b) VALUES }
     * @param row    one row's placeholders, {@code (?,?)}
     * @param binder how a row's values fill its placeholders
     */
    public MultiRowInsert(String head, String row, Binder<T> binder) {
        this(head, row, "", binder);
    }

    /**
     * @param tail what follows the rows, {@code  ON DUPLICATE KEY UPDATE ...}
     */
    public MultiRowInsert(String head, String row, String tail, Binder<T> binder) {
        for (int i = 0; i < statements.length; i++) {
            statements[i] = head + String.join(",", Collections.nCopies(1 << i, row)) + tail;
        }
        this.binder = binder;
    }

    /** {@code rows} of this table, for {@link #insert(Connection, Rows, Rows...)}. */
    public Rows<T> rows(List<T> rows) {
        return new Rows<>(this, rows);
    }

    /** The longest statement sent: the driver must keep it parsed ({@code prepStmtCacheSqlLimit}). */
    public String longest() {
        return statements[statements.length - 1];
    }

    /** The statement of one row. */
    public String shortest() {
        return statements[0];
    }

    /** Inserts {@code rows} on {@code connection}; nothing when empty. */
    public void insert(Connection connection, List<T> rows) throws SQLException {
        insert(connection, null, rows(rows));
    }

    /**
     * Inserts the rows of several tables, in order, in as few round trips as the longest of {@code zipped} needs on
     * its own: the first round trip carries every statement of {@code lead} and then the first statement of each of
     * {@code zipped}; the k-th carries the k-th statement of each of {@code zipped}. So all of {@code lead} is in
     * MySQL before any row of {@code zipped}, and rows of equal number in the zipped tables (an order and its ledger
     * row) ride in statements of the same shapes, which keeps the combined statements few.
     *
     * @param lead   rows written first, or {@code null}
     * @param zipped rows written together, statement by statement
     */
    public static void insert(Connection connection, Rows<?> lead, Rows<?>... zipped) throws SQLException {
        List<List<Piece<?>>> columns = new ArrayList<>(zipped.length);
        int trips = 0;
        for (Rows<?> rows : zipped) {
            List<Piece<?>> pieces = pieces(rows);
            columns.add(pieces);
            trips = Math.max(trips, pieces.size());
        }
        List<Piece<?>> leading = lead == null ? List.of() : pieces(lead);
        trips = Math.max(trips, leading.isEmpty() ? 0 : 1);
        for (int trip = 0; trip < trips; trip++) {
            List<Piece<?>> sent = new ArrayList<>(leading.size() + zipped.length);
            if (trip == 0) {
                sent.addAll(leading);
            }
            for (List<Piece<?>> pieces : columns) {
                if (trip < pieces.size()) {
                    sent.add(pieces.get(trip));
                }
            }
            send(connection, sent);
        }
    }

    /** The statements {@code rows} take: the largest power of two of rows first, at most {@value #MAX_ROWS} each. */
    private static <T> List<Piece<?>> pieces(Rows<T> rows) {
        List<Piece<?>> pieces = new ArrayList<>();
        List<T> all = rows.rows();
        for (int from = 0; from < all.size();) {
            int size = Math.min(MAX_ROWS, Integer.highestOneBit(all.size() - from));
            pieces.add(new Piece<>(rows.insert(), all.subList(from, from + size)));
            from += size;
        }
        return pieces;
    }

    private static void send(Connection connection, List<Piece<?>> pieces) throws SQLException {
        String sql;
        if (pieces.size() == 1) {
            sql = pieces.get(0).sql();
        } else {
            StringBuilder joined = new StringBuilder();
            for (Piece<?> piece : pieces) {
                joined.append(joined.isEmpty() ? "" : ";").append(piece.sql());
            }
            sql = joined.toString();
        }
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            int column = 0;
            for (Piece<?> piece : pieces) {
                column = piece.bind(statement, column);
            }
            boolean results = statement.execute();
            while (results || statement.getUpdateCount() != -1) { // every statement's outcome, errors included
                results = statement.getMoreResults();
            }
        }
    }
}
