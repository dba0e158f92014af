package io.flashstock.report;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.EnumMap;
import java.util.Map;

import io.agroal.api.AgroalDataSource;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.UnavailableException;
import io.flashstock.order.OrderStatus;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Reads an item's {@link Books} in one read-only REPEATABLE READ transaction started WITH CONSISTENT SNAPSHOT: the
 * counters, the order sums and the ledger sums all belong to the same instant, so a purchase, a confirm or a relay
 * batch committing meanwhile is either wholly in them or wholly not (each commits its counters, orders and movements
 * together). Its own connection and transaction, outside JTA: the service's default isolation is READ COMMITTED, under
 * which three statements would see three instants. Three index range reads (item's primary key, the orders' and the
 * movements' (sku, id) indexes), no lock taken.
 */
@ApplicationScoped
class BooksReader {

    private final AgroalDataSource dataSource;

    BooksReader(AgroalDataSource dataSource) {
        this.dataSource = dataSource;
    }

    /**
     * The item's books.
     *
     * @throws FlashstockException item-not-found for an unknown sku
     * @throws UnavailableException when MySQL cannot answer now
     */
    Books read(String sku) {
        try (Connection connection = dataSource.getConnection()) {
            // Agroal puts the isolation and auto-commit back when the connection returns to the pool.
            connection.setAutoCommit(false);
            connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            try {
                try (Statement start = connection.createStatement()) {
                    start.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY");
                }
                Books books = read(connection, sku);
                connection.commit();
                return books;
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new UnavailableException("The books cannot be read now; try again.", e);
        }
    }

    private static Books read(Connection connection, String sku) throws SQLException {
        Books.Counters counters;
        try (PreparedStatement item = connection.prepareStatement(
                "SELECT stock, available, reserved, sold, version, retired FROM item WHERE sku = ?")) {
            item.setString(1, sku);
            try (ResultSet row = item.executeQuery()) {
                if (!row.next()) {
                    throw FlashstockException.itemNotFound(sku);
                }
                counters = new Books.Counters(row.getLong(1), row.getLong(2), row.getLong(3), row.getLong(4),
                        row.getLong(5), row.getBoolean(6));
            }
        }
        Map<OrderStatus, Books.Tally> orders = new EnumMap<>(OrderStatus.class);
        try (PreparedStatement byStatus = connection.prepareStatement("SELECT status, COUNT(*), "
                + "COALESCE(SUM(quantity), 0) FROM purchase_order WHERE sku = ? GROUP BY status")) {
            byStatus.setString(1, sku);
            try (ResultSet rows = byStatus.executeQuery()) {
                while (rows.next()) {
                    orders.put(OrderStatus.valueOf(rows.getString(1)), new Books.Tally(rows.getLong(2), rows.getLong(3)));
                }
            }
        }
        try (PreparedStatement sums = connection.prepareStatement("SELECT COUNT(*), COALESCE(SUM(stock_delta), 0), "
                + "COALESCE(SUM(available_delta), 0), COALESCE(SUM(reserved_delta), 0), COALESCE(SUM(sold_delta), 0) "
                + "FROM movement WHERE sku = ?")) {
            sums.setString(1, sku);
            try (ResultSet row = sums.executeQuery()) {
                row.next();
                return new Books(counters, orders, new Books.LedgerSums(row.getLong(1), row.getLong(2),
                        row.getLong(3), row.getLong(4), row.getLong(5)));
            }
        }
    }
}
