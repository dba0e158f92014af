package io.flashstock.deduction;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

import org.junit.jupiter.api.Test;

/** What the order and ledger INSERTs need from the driver's settings, without a database. */
class DbPurchaseTest {

    @Test
    void theLongestOrderAndLedgerInsertsStayParsedInTheDriversCache() throws IOException {
        Properties settings = new Properties();
        try (InputStream in = getClass().getResourceAsStream("/application.properties")) {
            settings.load(in);
        }
        String prefix = "quarkus.datasource.jdbc.additional-jdbc-properties.";
        assertTrue(Boolean.parseBoolean(settings.getProperty(prefix + "cachePrepStmts")));
        int limit = Integer.parseInt(settings.getProperty(prefix + "prepStmtCacheSqlLimit"));
        String longest = OrderWriter.longestInsert();
        assertTrue(longest.length() <= limit, "the " + OrderWriter.MAX_ROWS_PER_INSERT + "-row INSERTs of orders"
                + " and movements of one item have " + longest.length() + " characters, over prepStmtCacheSqlLimit "
                + limit);
        assertTrue(Boolean.parseBoolean(settings.getProperty(prefix + "allowMultiQueries")),
                "orders and their movements go in one round trip");
    }
}
