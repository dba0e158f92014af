package io.flashstock.order;

import static io.flashstock.testsupport.Api.given;
import static io.flashstock.testsupport.Shop.buy;
import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.LocalServersResource;
import io.flashstock.testsupport.Pause;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

/**
 * Two extensions of one reservation at once: the one that commits second must not move the expiry back to its own,
 * earlier time. Before, it read the expiry, waited for the first one's row lock, and then wrote its shorter expiry
 * over the one the first had answered 200 with: the order expired early and its payment's confirm got 409.
 */
@QuarkusTest
@TestProfile(StrategyProfiles.DbOptimistic.class)
@WithTestResource(LocalServersResource.class)
class ExtendRaceTest {

    @Test
    void aShorterExtensionCommittingSecondNeverShortensTheExpiry() throws Exception {
        String sku = newSku("extend-race");
        createItem(sku, 2, 0);
        String orderId = buy(sku, "extender", 1);
        try (Connection first = Db.begin()) {
            // The first extension has written its later expiry and not committed yet; the second reads the old
            // expiry (its read does not wait) and waits for the row to write its own.
            assertEquals(1, Db.update(first, "UPDATE purchase_order SET expires_at = UTC_TIMESTAMP(6)"
                    + " + INTERVAL 3600 SECOND, updated_at = UTC_TIMESTAMP(6) WHERE id = ?", orderId));
            CompletableFuture<Response> second = CompletableFuture.supplyAsync(() -> given()
                    .contentType("application/json").body("{\"seconds\":1800}")
                    .post("/orders/" + orderId + "/extend"));
            assertTrue(Db.awaitLockWait(2_500), "the second extension waits for the row");
            assertFalse(second.isDone());
            first.commit();

            Response answer = second.get(10, TimeUnit.SECONDS);
            assertEquals(200, answer.statusCode(), answer.asString());
            Instant answered = Instant.parse(answer.jsonPath().getString("expiresAt"));
            Instant stored = storedExpiry(orderId);
            assertEquals(stored.getEpochSecond(), answered.getEpochSecond(), 1, "the answer shows where it is");
            long fromNow = stored.getEpochSecond() - Instant.now().getEpochSecond();
            assertEquals(3600, fromNow, 30, "the later expiry stands: " + stored);
        }
    }

    private static Instant storedExpiry(String orderId) throws Exception {
        try (Connection c = Db.connect();
                PreparedStatement s = c.prepareStatement("SELECT expires_at FROM purchase_order WHERE id = ?")) {
            s.setString(1, orderId);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                Timestamp expires = rs.getTimestamp(1, java.util.Calendar.getInstance(
                        java.util.TimeZone.getTimeZone("UTC")));
                return expires.toInstant();
            }
        }
    }
}
