package io.flashstock.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.sql.SQLException;

import io.flashstock.error.FlashstockException;
import io.flashstock.error.UnavailableException;
import io.quarkus.narayana.jta.QuarkusTransactionException;
import jakarta.persistence.PersistenceException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import org.junit.jupiter.api.Test;

/** The problem mapping without Quarkus: codes, statuses, Retry-After, and no internals in any body. */
class ProblemMapperTest {

    private final ProblemMapper mapper = new ProblemMapper("urn:flashstock:problem:", 2, new io.micrometer.core.instrument.simple.SimpleMeterRegistry());

    @Test
    void domainOutcomesKeepTheirCodeAndDetail() {
        Response response = mapper.domain(FlashstockException.soldOut("phone-x", 3), null);
        Problem body = body(response);
        assertEquals(409, response.getStatus());
        assertEquals(Problem.MEDIA_TYPE, response.getMediaType().toString());
        assertEquals("urn:flashstock:problem:sold-out", body.type());
        assertEquals("Sold out", body.title());
        assertEquals("Item 'phone-x' has fewer than 3 unit(s) available.", body.detail());
        assertNull(response.getHeaderString("Retry-After"));
    }

    @Test
    void unavailableCarriesRetryAfterAndNotItsCause() {
        Response response = mapper.domain(new UnavailableException("try again",
                new SQLException("Communications link failure to db-7.internal:3306", "08S01")), null);
        assertEquals(503, response.getStatus());
        assertEquals("2", response.getHeaderString("Retry-After"));
        assertFalse(body(response).detail().contains("db-7"));
    }

    @Test
    void databaseFailuresNeverLeakSql() {
        Response down = mapper.database(new PersistenceException(
                new SQLException("Connection refused", "08001")), null);
        assertEquals(503, down.getStatus());
        assertEquals("urn:flashstock:problem:unavailable", body(down).type());
        Response broken = mapper.database(new PersistenceException("could not execute statement [select * from item]",
                new SQLException("Table 'item' doesn't exist", "42S02", 1146)), null);
        assertEquals(500, broken.getStatus());
        assertFalse(body(broken).detail().toLowerCase().contains("select"));
        assertFalse(body(broken).detail().contains("item'"));
    }

    /** A read's commit on a connection the pool discarded: Narayana's failure, wrapped by QuarkusTransaction. */
    @Test
    void aTransactionWhoseCommitLostItsConnectionIsUnavailable() {
        Exception rollback = new Exception("ARJUNA016053: Could not commit transaction.");
        rollback.addSuppressed(new Exception("Error trying to commit local transaction: Connection is closed",
                new SQLException("Connection is closed")));
        Response down = mapper.transaction(new QuarkusTransactionException(rollback), null);
        assertEquals(503, down.getStatus());
        assertEquals("urn:flashstock:problem:unavailable", body(down).type());
        Response other = mapper.transaction(new QuarkusTransactionException(new Exception("ARJUNA016053")), null);
        assertEquals(500, other.getStatus());
        assertFalse(body(other).detail().contains("ARJUNA"));
    }

    @Test
    void aConflictNoRetryTookCareOfIsUnavailableNotAnError() {
        Response busy = mapper.database(new PersistenceException(
                new SQLException("Lock wait timeout exceeded; try restarting transaction", "HY000", 1205)), null);
        assertEquals(503, busy.getStatus());
        assertEquals("urn:flashstock:problem:unavailable", body(busy).type());
        assertEquals("2", busy.getHeaderString("Retry-After"));
        assertFalse(body(busy).detail().contains("Lock wait"));
    }

    @Test
    void frameworkStatusesBecomeTheirProblems() {
        assertEquals("urn:flashstock:problem:unsupported-media-type",
                body(mapper.http(new WebApplicationException(415), null)).type());
        assertEquals("urn:flashstock:problem:not-found", body(mapper.http(new WebApplicationException(404), null)).type());
        assertEquals(405, mapper.http(new WebApplicationException(405), null).getStatus());
    }

    /** A sale-window instant Jackson cannot read (a year past 9999 needs its sign) names the field and the range. */
    @Test
    void anUnreadableInstantNamesItsFieldAndTheRange() {
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper()
                .registerModule(new com.fasterxml.jackson.datatype.jsr310.JavaTimeModule());
        new StrictJson().customize(json);
        com.fasterxml.jackson.databind.exc.MismatchedInputException e = org.junit.jupiter.api.Assertions.assertThrows(
                com.fasterxml.jackson.databind.exc.MismatchedInputException.class,
                () -> json.readValue("{\"endsAt\":\"10000-01-01T00:00:00Z\"}", InputRulesTest.Window.class));
        Response response = mapper.jsonMismatch(e, null);
        assertEquals(400, response.getStatus());
        assertEquals("urn:flashstock:problem:invalid-request", body(response).type());
        assertEquals("endsAt: must be an ISO-8601 instant such as 2026-12-01T12:00:00Z, an instant from"
                + " 1970-01-01T00:00:01Z to 9999-12-31T23:59:59.999999Z", body(response).detail());
    }

    private static Problem body(Response response) {
        return (Problem) response.getEntity();
    }
}
