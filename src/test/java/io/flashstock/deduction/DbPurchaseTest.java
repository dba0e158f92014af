package io.flashstock.deduction;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

import org.junit.jupiter.api.Test;

/** What the order INSERTs need from the driver's settings, without a database. */
class DbPurchaseTest {

    @Test
    void theLongestOrderInsertStaysParsedInTheDriversCache() throws IOException {
        Properties settings = new Properties();
        try (InputStream in = getClass().getResourceAsStream("/application.properties")) {
            settings.load(in);
        }
        String prefix = "quarkus.datasource.jdbc.additional-jdbc-properties.";
        assertTrue(Boolean.parseBoolean(settings.getProperty(prefix + "cachePrepStmts")));
        int limit = Integer.parseInt(settings.getProperty(prefix + "prepStmtCacheSqlLimit"));
        int length = OrderWriter.longestInsert().length();
        assertTrue(length <= limit, "the " + OrderWriter.MAX_ROWS_PER_INSERT + "-row INSERT has " + length
                + " characters, over prepStmtCacheSqlLimit " + limit);
    }
}
