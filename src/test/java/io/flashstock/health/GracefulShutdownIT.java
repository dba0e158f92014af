package io.flashstock.health;

import static io.flashstock.testsupport.Shop.newSku;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.Http;
import io.flashstock.testsupport.Http.Reply;
import io.flashstock.testsupport.Json;
import io.flashstock.testsupport.Lane;
import io.flashstock.testsupport.LocalServersResource;
import io.flashstock.testsupport.OwnRedis;
import io.flashstock.testsupport.Pause;
import io.flashstock.testsupport.ServiceProcess;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What a rollout or a drain does to a pod, on the packaged service: {@code SIGTERM}, as the kubelet sends it, with the
 * Deployment's pre-shutdown phase ({@code quarkus.shutdown.delay}; src/main/kubernetes/kubernetes.yml). For that
 * phase the pod reports not ready, so the Service stops routing to it, while it still answers what reaches it; then
 * it stops. The readiness check that says so is flashstock's own ({@link ShutdownReadinessCheck}).
 */
@Tag(Lane.FULL_TAG)
class GracefulShutdownIT {

    private static final Duration DELAY = Duration.ofSeconds(5);

    @Test
    void aPodAskedToStopLeavesTheServiceWhileItStillServes() {
        try (OwnRedis redis = OwnRedis.start();
                ServiceProcess pod = ServiceProcess.start("graceful", settings(redis))) {
            HttpRequest ready = HttpRequest.newBuilder(pod.base().resolve("/q/health/ready"))
                    .timeout(Duration.ofSeconds(5)).GET().build();
            assertEquals("UP", shutdownCheck(Http.send(ready)), "before SIGTERM");
            String sku = newSku("graceful");
            Reply created = Http.send(Http.post(pod.base().resolve("/items"),
                    "{\"sku\":\"" + sku + "\",\"name\":\"Graceful\",\"stock\":10}").build());
            assertEquals(201, created.status(), created.body());

            long asked = System.nanoTime();
            pod.terminate();
            Reply notReady = Http.send(ready);
            while (!"DOWN".equals(shutdownCheck(notReady)) && millisSince(asked) < 2_000) {
                Pause.sleep(50);
                notReady = Http.send(ready);
            }
            assertEquals("DOWN", shutdownCheck(notReady), "within 2 s of SIGTERM: " + notReady.body());
            assertEquals(503, notReady.status(), notReady.body());

            long sent = millisSince(asked);
            Reply bought = Http.send(Http.post(pod.base().resolve("/items/" + sku + "/purchases"),
                    "{\"userId\":\"leaving\",\"quantity\":1}").build());
            assertTrue(sent < DELAY.toMillis(), "the purchase was sent inside the delay, at " + sent + " ms");
            assertEquals(201, bought.status(), "a pod leaving the Service still serves: " + bought.body());
            assertEquals(1, Db.orderCount(sku), "the purchase's order");

            assertTrue(pod.exits(DELAY.plusSeconds(30)), "the pod stopped after its delay");
            assertTrue(millisSince(asked) >= DELAY.toMillis() - 200,
                    "the pod served the whole delay: stopped after " + millisSince(asked) + " ms");
        }
    }

    /** The status of the graceful-shutdown check in a readiness answer. */
    private static String shutdownCheck(Reply readiness) {
        for (JsonNode check : Json.read(readiness.body()).path("checks")) {
            if ("graceful-shutdown".equals(check.path("name").asText())) {
                return check.path("status").asText();
            }
        }
        throw new AssertionError("no graceful-shutdown check: " + readiness.body());
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    /** db-optimistic on the tests' MySQL and a Redis of the test's own, with the Deployment's pre-shutdown phase. */
    private static Map<String, String> settings(OwnRedis redis) {
        Map<String, String> settings = ServiceProcess.settings("db-optimistic", LocalServersResource.jdbcUrl(),
                redis.hosts());
        settings.put("quarkus.shutdown.delay", DELAY.toSeconds() + "s");
        settings.put("quarkus.shutdown.timeout", "5s");
        return settings;
    }
}
