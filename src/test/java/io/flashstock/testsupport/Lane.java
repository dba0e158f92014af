package io.flashstock.testsupport;

/**
 * Which test lane runs (README, "Tests"): the fast gate of {@code ./mvnw verify}, or the full lane of
 * {@code ./mvnw verify -Pfull}. The full lane also runs the classes tagged {@link #FULL_TAG}, and sizes the fault
 * cases the gate runs small (a few hundred units, a short hang) at full size; {@code .ci/run} runs the gate's classes
 * with {@code -Dtest.lane=full} too. Maven sets the system property
 * {@code test.lane} for surefire and failsafe (not a {@code flashstock.*} name: the service's config mapping
 * refuses unknown names under its prefix); run from an IDE, a test takes the gate's size.
 */
public final class Lane {

    /** The JUnit tag of classes that only the full lane runs (pom.xml excludes it unless {@code -Pfull}). */
    public static final String FULL_TAG = "full";

    /**
     * The JUnit tag of classes {@code .ci/run} runs with no other test JVM beside them, after the two-fork run of the
     * rest: the Redis Cluster shard-loss classes, one of which once answered 503 for over a minute under a second
     * fork's load (docs/testing.md). Any lane runs them; only CI's order changes.
     */
    public static final String ALONE_TAG = "alone";

    private static final boolean FULL = "full".equals(System.getProperty("test.lane"));

    private Lane() {
    }

    /** Whether this is the full lane. */
    public static boolean full() {
        return FULL;
    }

    /** {@code gate} in the fast gate, {@code full} in the full lane: a fault case's size. */
    public static int size(int gate, int full) {
        return FULL ? full : gate;
    }
}
