package io.flashstock.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.Instances;
import io.flashstock.testsupport.LocalServersResource;
import io.flashstock.testsupport.Shop;
import io.flashstock.testsupport.Tokens;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;
import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every log line written while a request is served carries its request id (the caller's when safe, else a new one,
 * echoed in {@code X-Request-Id}); every request ends with one access line (method, path template, status, duration,
 * the token's {@code sub}); and no log line holds a token, valid or not, with the debug log of the 401 path on. Runs
 * in the redis-lua write-behind profile's Quarkus instance, with the access category turned on for itself.
 */
@QuarkusTest
@TestProfile(StrategyProfiles.RedisLuaWriteBehind.class)
@WithTestResource(LocalServersResource.class)
class AccessLogTest {

    private static final String PROBLEMS = ProblemMapper.class.getName();
    /** Hibernate's statement log: written on the worker thread that serves a read of an item. */
    private static final String SQL = "org.hibernate.SQL";

    private final Captured captured = new Captured();
    private Level accessLevel;

    @BeforeEach
    void capture() {
        accessLevel = Logger.getLogger(AccessLog.CATEGORY).getLevel();
        Logger.getLogger(AccessLog.CATEGORY).setLevel(Level.INFO);
        Logger.getLogger(PROBLEMS).setLevel(Level.FINE);
        Logger.getLogger(SQL).setLevel(Level.FINE);
        Logger.getLogger("").addHandler(captured);
    }

    @AfterEach
    void release() {
        Logger.getLogger("").removeHandler(captured);
        Logger.getLogger(AccessLog.CATEGORY).setLevel(accessLevel);
        Logger.getLogger(PROBLEMS).setLevel(null);
        Logger.getLogger(SQL).setLevel(null);
    }

    @Test
    void everyLineOfARequestCarriesItsIdAndNoLineATokenOrARawPath() throws InterruptedException {
        String sku = Shop.newSku("logged");
        Shop.createItem(sku, 5, 0);
        String buyer = Tokens.bearer("buyer-7", "buyer");
        String rejected = Tokens.bearer(Tokens.Bad.WRONG_SIGNATURE);

        request("rid-buy-1", buyer).contentType(ContentType.JSON).body("{\"quantity\":1}")
                .post("/items/" + sku + "/purchases").then().statusCode(201).header(RequestIds.HEADER, "rid-buy-1");
        request("rid-bad-1", rejected).get("/items/" + sku).then().statusCode(401)
                .header(RequestIds.HEADER, "rid-bad-1");
        request("rid-413", Tokens.staff()).contentType(ContentType.JSON)
                .body("{\"paused\":" + " ".repeat(20_000) + "false}").put("/items/" + sku + "/sale")
                .then().statusCode(413).header(RequestIds.HEADER, "rid-413");
        request("rid-read-1", Tokens.staff()).get("/items/" + sku).then().statusCode(200);
        request("rid-nowhere", Tokens.staff()).contentType(ContentType.JSON)
                .body("{\"paused\":" + " ".repeat(20_000) + "false}").put("/" + sku + "/made-up")
                .then().statusCode(413);
        String fresh = request("unsafe id: " + buyer.substring(7, 20), buyer).get("/items/" + sku + "/availability")
                .then().statusCode(200).extract().header(RequestIds.HEADER);
        assertTrue(fresh.matches("[0-9a-f]{16}"), "an unsafe id is replaced: " + fresh);

        assertAccess("rid-buy-1", "method=POST path=/items/{sku}/purchases status=201 duration_ms=", "sub=buyer-7");
        assertAccess("rid-bad-1", "method=GET path=/items/{sku} status=401 duration_ms=", "sub=-");
        assertAccess("rid-413", "method=PUT path=/items/{sku}/sale status=413 duration_ms=", "sub=-");
        assertAccess("rid-nowhere", "method=PUT path=UNMATCHED status=413");
        assertAccess(fresh, "method=GET path=/items/{sku}/availability status=200", "sub=buyer-7");

        List<ExtLogRecord> unauthenticated = captured.snapshot().stream()
                .filter(r -> PROBLEMS.equals(r.getLoggerName()) && r.getFormattedMessage().contains(sku)).toList();
        assertFalse(unauthenticated.isEmpty(), "the 401's debug line was written");
        unauthenticated.forEach(r -> assertEquals("rid-bad-1", r.getMdc(RequestIds.MDC_KEY),
                "the id on a line written while serving: " + r.getFormattedMessage()));

        List<ExtLogRecord> statements = captured.snapshot().stream()
                .filter(r -> SQL.equals(r.getLoggerName()) && "rid-read-1".equals(r.getMdc(RequestIds.MDC_KEY)))
                .toList();
        assertFalse(statements.isEmpty(), "the read's SQL lines carry its id");
        assertTrue(statements.stream().allMatch(r -> r.getThreadName().startsWith("executor-thread")),
                "on the worker that served it: " + statements.stream().map(ExtLogRecord::getThreadName).toList());

        for (ExtLogRecord record : captured.snapshot()) {
            String line = record.getFormattedMessage() + " " + record.getMdcCopy()
                    + (record.getThrown() == null ? "" : " " + record.getThrown());
            for (String token : List.of(buyer, rejected, Tokens.staff())) {
                String signature = token.substring(token.lastIndexOf('.') + 1);
                assertFalse(line.contains(token.substring(7)) || line.contains(signature), "a token in: " + line);
            }
            if (AccessLog.CATEGORY.equals(record.getLoggerName())) {
                assertFalse(line.contains(sku), "a raw path in the access log: " + line);
            }
        }
    }

    private static RequestSpecification request(String requestId, String authorization) {
        return RestAssured.given().port(Instances.nextPort()).header("Authorization", authorization)
                .header(RequestIds.HEADER, requestId);
    }

    /** The access line of request {@code id}, once it is written (just after the answer): it holds each part. */
    private void assertAccess(String id, String... parts) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 5_000;
        Optional<ExtLogRecord> line;
        do {
            line = captured.snapshot().stream().filter(r -> AccessLog.CATEGORY.equals(r.getLoggerName())
                    && id.equals(r.getMdc(RequestIds.MDC_KEY))).findFirst();
            if (line.isEmpty()) {
                Thread.sleep(50);
            }
        } while (line.isEmpty() && System.currentTimeMillis() < deadline);
        assertTrue(line.isPresent(), "an access line with request id " + id);
        for (String part : parts) {
            assertTrue(line.get().getFormattedMessage().contains(part), line.get().getFormattedMessage());
        }
    }

    /** Every record published while the test runs, with its MDC as it was on the thread that wrote it. */
    private static final class Captured extends Handler {
        private final List<ExtLogRecord> records = Collections.synchronizedList(new ArrayList<>());

        Captured() {
            setLevel(Level.ALL);
        }

        @Override
        public void publish(LogRecord record) {
            if (record instanceof ExtLogRecord ext) {
                ext.copyAll();
                records.add(ext);
            }
        }

        List<ExtLogRecord> snapshot() {
            synchronized (records) {
                return List.copyOf(records);
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }
}
