package io.flashstock.deduction.lua;

import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Singleton;

/**
 * The {@link Checkpoints} of the tests: in every {@code @QuarkusTest} this alternative from the test sources takes the
 * place of production's {@link Checkpoints.Passing}, and passes every step until a test asks for a crash at one.
 * Then every cart request, or relay round, that gets there dies, as a pod killed there would: a cart request by an
 * Error that no cleanup on the way catches, a relay round by the failure its round survives.
 */
@Alternative
@Priority(1)
@Singleton
public class Crashes implements Checkpoints {

    /** What a cart request that dies at a step throws: an Error, so that no cleanup on the way catches it. */
    static final class Crashed extends Error {
        Crashed(Step step) {
            super("test: cart request crashed after " + step, null, false, false);
        }
    }

    /** The step to die at; null: none. */
    private volatile Step crashAt;
    /** The step to wait at until {@link #release}; null: none. */
    private volatile Step holdAt;
    private volatile java.util.concurrent.CountDownLatch reached = new java.util.concurrent.CountDownLatch(0);
    private volatile java.util.concurrent.CountDownLatch released = new java.util.concurrent.CountDownLatch(0);

    /**
     * From now on the first cart request or relay round that gets past {@code step} waits there (for a relay round:
     * holding the relay's lock) until {@link #release}, at most 10 s.
     */
    public void holdAt(Step step) {
        reached = new java.util.concurrent.CountDownLatch(1);
        released = new java.util.concurrent.CountDownLatch(1);
        holdAt = step;
    }

    /** Whether a thread got to the held step within {@code millis}. */
    public boolean awaitHeld(long millis) throws InterruptedException {
        return reached.await(millis, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /** The held thread goes on; nothing is held any more. */
    public void release() {
        holdAt = null;
        released.countDown();
    }

    /** From now on every cart request, or relay round, that gets past {@code step} dies there. */
    public void crashAt(Step step) {
        crashAt = step;
    }

    /** No more crashes. */
    public void none() {
        crashAt = null;
    }

    @Override
    public void passed(Step step) {
        if (step == holdAt) {
            holdAt = null;
            reached.countDown();
            try {
                released.await(10, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (step != crashAt) {
            return;
        }
        if (step == Step.RELAY_COMMITTED) {
            throw new IllegalStateException("test: relay crashed after its MySQL commit");
        }
        throw new Crashed(step);
    }
}
