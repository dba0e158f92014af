package io.flashstock.testsupport;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.quarkus.test.junit.QuarkusTestProfile;
import io.restassured.RestAssured;

/**
 * Which instance of the service a test's next request goes to. Normally the one Quarkus started for the test class
 * ({@code RestAssured.port}). With {@link #startSecond} a second instance of the packaged service runs on the same
 * MySQL and Redis, and requests alternate between the two ({@link Api#given()} and {@link Http#uri} ask here), so a
 * suite written for one instance checks that two pods together keep every promise: one buys, the other confirms,
 * cancels, reads.
 */
public final class Instances {

    private static final AtomicInteger TURN = new AtomicInteger();
    private static volatile ServiceProcess second;

    private Instances() {
    }

    /** Whether a second instance runs: then requests alternate between two pods. */
    public static boolean several() {
        return second != null;
    }

    /** The port of the instance the next request goes to. */
    public static int nextPort() {
        ServiceProcess other = second;
        if (other == null || (TURN.getAndIncrement() & 1) == 0) {
            return RestAssured.port;
        }
        return other.port();
    }

    /**
     * Starts a second instance of the packaged service with the test profile's settings, on the MySQL and Redis of
     * {@link LocalServersResource}, and from now on sends every other request to it.
     */
    public static void startSecond(String name, QuarkusTestProfile profile) {
        startSecond(name, profile, Map.of());
    }

    /** {@link #startSecond(String, QuarkusTestProfile)}, with {@code overrides} on top (another Redis). */
    public static void startSecond(String name, QuarkusTestProfile profile, Map<String, String> overrides) {
        Map<String, String> settings = new HashMap<>(profile.getConfigOverrides());
        settings.put("quarkus.datasource.jdbc.url", LocalServersResource.jdbcUrl());
        settings.put("quarkus.datasource.username", LocalServersResource.username());
        settings.put("quarkus.datasource.password", LocalServersResource.password());
        settings.put("quarkus.redis.hosts", LocalServersResource.redisHosts());
        settings.putAll(overrides);
        second = ServiceProcess.start(name, settings);
    }

    /** Stops the second instance; requests go to the test's own instance again. */
    public static void stopSecond() {
        ServiceProcess other = second;
        second = null;
        if (other != null) {
            other.close();
        }
    }
}
