package io.flashstock.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
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

    private final String[] statements = new String[Integer.numberOfTrailingZeros(MAX_ROWS) + 1];
    private final Binder<T> binder;

    /**
     * @param head   {@code INSERT INTO t (a, b) VALUES }
     * @param row    one row's placeholders, {@code (?,?)}
     * @param binder how a row's values fill its placeholders
     */
    public MultiRowInsert(String head, String row, Binder<T> binder) {
        for (int i = 0; i < statements.length; i++) {
            statements[i] = head + String.join(",", Collections.nCopies(1 << i, row));
        }
        this.binder = binder;
    }

    /** The longest statement sent: the driver must keep it parsed ({@code prepStmtCacheSqlLimit}). */
    public String longest() {
        return statements[statements.length - 1];
    }

    /** Inserts {@code rows} on {@code connection}; nothing when empty. */
    public void insert(Connection connection, List<T> rows) throws SQLException {
        for (int from = 0; from < rows.size();) {
            int size = Math.min(MAX_ROWS, Integer.highestOneBit(rows.size() - from));
            try (PreparedStatement insert = connection.prepareStatement(
                    statements[Integer.numberOfTrailingZeros(size)])) {
                int column = 0;
                for (T row : rows.subList(from, from + size)) {
                    column = binder.bind(insert, column, row);
                }
                insert.executeUpdate();
            }
            from += size;
        }
    }
}
