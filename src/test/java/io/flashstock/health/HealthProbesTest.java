package io.flashstock.health;

import static io.flashstock.testsupport.Api.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import io.agroal.api.AgroalDataSource;
import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.item.Availability;
import io.flashstock.testsupport.Shop;
import io.flashstock.testsupport.LocalServersResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * A pod that is only busy: the orchestrator must neither restart it nor take it out of the Service, and what a sale's
 * buyers poll most is still answered from memory.
 */
@QuarkusTest
@TestProfile(StrategyProfiles.DbOptimistic.class)
@WithTestResource(LocalServersResource.class)
class HealthProbesTest {

    /**
     * More than the worker pool's threads: {@code quarkus.thread-pool.max-threads}, by default the larger of 200 and
     * 8 per core (Quarkus's default), so that every worker is busy on any machine.
     */
    private static int busyWorkers() {
        return org.eclipse.microprofile.config.ConfigProvider.getConfig()
                .getOptionalValue("quarkus.thread-pool.max-threads", Integer.class)
                .orElse(Math.max(200, 8 * Runtime.getRuntime().availableProcessors())) + 60;
    }

    @Inject
    AgroalDataSource pool;

    @Inject
    Availability availability;

    /**
     * Every worker thread busy (as purchases keep them in a sale): liveness still answers at once, from the event
     * loop. Before, its check waited for a worker like any plain health check, behind everything queued, and the
     * kubelet would have restarted a pod that was only busy.
     */
    @Test
    void livenessAnswersWhileEveryWorkerIsBusy() {
        probeWhileEveryWorkerIsBusy("/q/health/live");
    }

    /**
     * Every worker thread busy: readiness still answers at once, with the graceful-shutdown check flashstock's own.
     * Before, Quarkus's graceful-shutdown check (a plain health check) waited for a worker, the probe waited 20 s
     * here, and the kubelet would have taken a pod that was only busy out of the Service.
     */
    @Test
    void readinessAnswersWhileEveryWorkerIsBusy() {
        List<String> checks = probeWhileEveryWorkerIsBusy("/q/health/ready").jsonPath().getList("checks.name");
        assertTrue(checks.contains("graceful-shutdown") && !checks.contains("Graceful Shutdown"),
                "the graceful-shutdown check is flashstock's: " + checks);
    }

    /** Asks a probe while every worker is busy: it must answer 200 within 2 s. */
    private static io.restassured.response.Response probeWhileEveryWorkerIsBusy(String path) {
        CountDownLatch release = new CountDownLatch(1);
        try {
            occupy(Infrastructure.getDefaultWorkerPool(), release);
            long start = System.nanoTime();
            var answer = given().get(path);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(200, answer.statusCode(), answer.asString());
            assertTrue(millis < 2_000, path + " answered after " + millis + " ms");
            return answer;
        } finally {
            release.countDown();
        }
    }

    /**
     * Every worker thread busy: an availability read this pod remembers is answered at once, from the event loop,
     * while one it must load waits for a worker. Before, every read waited for a worker like any blocking endpoint.
     */
    @Test
    void aRememberedAvailabilityAnswersWhileEveryWorkerIsBusy() {
        String sku = "busy-" + java.util.UUID.randomUUID().toString().substring(0, 8);
        Shop.createItem(sku, 5, 0);
        CountDownLatch release = new CountDownLatch(1);
        try {
            occupy(Infrastructure.getDefaultWorkerPool(), release);
            availability.read(sku); // remembered for availability.cache-ttl (1 s)
            long start = System.nanoTime();
            var answer = given().get("/items/" + sku + "/availability");
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(200, answer.statusCode(), answer.asString());
            assertEquals(5, answer.jsonPath().getInt("available"));
            assertTrue(millis < 1_000, "a remembered availability answered after " + millis + " ms");
        } finally {
            release.countDown();
        }
    }

    private static void occupy(ExecutorService workers, CountDownLatch release) {
        for (int i = 0, busy = busyWorkers(); i < busy; i++) {
            workers.execute(() -> {
                try {
                    release.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
    }

    /**
     * Readiness asked again and again (anyone may ask: it takes no token) opens MySQL connections of its own, one a
     * second at most, and adds none to the pool. Before the probe had a connection of its own, asking the pool for a
     * new one added it to the pool, past its maximum.
     */
    @Test
    void readinessAskedOftenAddsNoConnectionToThePool() throws InterruptedException {
        long created = pool.getMetrics().creationCount();
        for (int i = 0; i < 20; i++) {
            var ready = given().get("/q/health/ready");
            assertEquals(200, ready.statusCode(), ready.asString());
            Thread.sleep(100);
        }
        assertTrue(pool.getMetrics().creationCount() - created <= 2,
                "connections the pool created meanwhile: " + (pool.getMetrics().creationCount() - created));
    }

    /**
     * Every pooled connection busy (a sale on many items): MySQL itself answers, so readiness stays UP. Before, its
     * check waited for a pooled connection, gave up after the acquisition timeout and took the pod out.
     */
    @Test
    void readinessStaysUpWhileEveryPooledConnectionIsBusy() throws SQLException {
        List<Connection> taken = new ArrayList<>();
        try {
            while (taken.size() < pool.getConfiguration().connectionPoolConfiguration().maxSize()) {
                taken.add(pool.getConnection());
            }
            String ready = given().get("/q/health/ready").then().statusCode(200).extract().asString()
                    .replaceAll("\\s", "");
            assertTrue(ready.contains("\"name\":\"database\",\"status\":\"UP\",\"data\":{\"reachable\":true"), ready);
        } finally {
            for (Connection connection : taken) {
                connection.close();
            }
        }
    }
}
