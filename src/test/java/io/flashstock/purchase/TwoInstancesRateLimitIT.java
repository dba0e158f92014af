package io.flashstock.purchase;

import static io.flashstock.testsupport.Shop.byStatus;
import static io.flashstock.testsupport.Shop.newSku;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.Http.Reply;
import io.flashstock.testsupport.Http;
import io.flashstock.testsupport.Lane;
import io.flashstock.testsupport.LocalServersResource;
import io.flashstock.testsupport.OwnRedis;
import io.flashstock.testsupport.ServiceProcess;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The per-user rate limit is one limit for the whole deployment: two instances of the packaged service on one MySQL
 * and one Redis, a user's 20 rapid purchases split between them. Each instance counting alone would let the burst
 * through twice.
 */
@Tag(Lane.FULL_TAG)
class TwoInstancesRateLimitIT {

    private static final int BURST = 5;

    @Test
    void twentyRapidPurchasesAcrossTwoInstancesDeductExactlyTheAllowedOnes() {
        try (OwnRedis redis = OwnRedis.start();
                ServiceProcess first = ServiceProcess.start("rate-first", settings(redis));
                ServiceProcess second = ServiceProcess.start("rate-second", settings(redis))) {
            String sku = newSku("rate-two");
            Reply created = Http.send(Http.post(first.base().resolve("/items"),
                    "{\"sku\":\"" + sku + "\",\"name\":\"Two\",\"stock\":100}").build());
            assertEquals(201, created.status(), created.body());
            String user = "both-" + UUID.randomUUID().toString().substring(0, 8);

            long started = System.nanoTime();
            List<Reply> replies = Http.concurrently(20, 4, i -> Http.post((i % 2 == 0 ? first : second).base()
                    .resolve("/items/" + sku + "/purchases"), "{\"userId\":\"" + user + "\",\"quantity\":1}").build());
            double seconds = (System.nanoTime() - started) / 1e9;

            Map<Integer, Long> statuses = byStatus(replies);
            long allowed = statuses.getOrDefault(201, 0L);
            assertEquals(20, allowed + statuses.getOrDefault(429, 0L), "only 201 and 429: " + statuses);
            assertTrue(allowed >= BURST && allowed <= BURST + Math.ceil(seconds),
                    allowed + " allowed in " + seconds + " s (each instance alone would allow " + BURST + ")");
            assertEquals(allowed, Db.orderCount(sku), "an order per 201");
            Map<String, Long> row = Db.item(sku);
            assertEquals(List.of(100L - allowed, allowed), List.of(row.get("available"), row.get("reserved")),
                    "MySQL's counters: exactly the allowed ones deducted");
        }
    }

    /** redis-lua (write-through), one purchase a second per user with a burst of 5, on the tests' MySQL. */
    private static Map<String, String> settings(OwnRedis redis) {
        return Map.of("quarkus.profile", "redis-lua",
                "quarkus.datasource.jdbc.url", LocalServersResource.jdbcUrl(),
                "quarkus.datasource.username", LocalServersResource.username(),
                "quarkus.datasource.password", LocalServersResource.password(),
                "quarkus.redis.hosts", redis.hosts(),
                "flashstock.rate-limit.per-user", "1",
                "flashstock.rate-limit.per-user-burst", Integer.toString(BURST));
    }
}
