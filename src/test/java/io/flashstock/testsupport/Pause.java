package io.flashstock.testsupport;

/** Waiting between polls in tests, where an interrupt should end the test rather than be swallowed. */
public final class Pause {

    private Pause() {
    }

    /** Sleeps; an interrupt keeps the thread's flag and fails the caller. */
    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Polls {@code condition} every 10 ms until it holds or {@code millis} have passed; whether it holds. */
    public static boolean until(java.util.function.BooleanSupplier condition, long millis) {
        long deadline = System.currentTimeMillis() + millis;
        while (!condition.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                return false;
            }
            sleep(10);
        }
        return true;
    }

    /** Waits until {@code latch} opens (null: at once), {@code millis} at most; past that, fails the caller. */
    public static void await(java.util.concurrent.CountDownLatch latch, long millis) {
        try {
            if (latch != null && !latch.await(millis, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("waited " + millis + " ms for a latch");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
