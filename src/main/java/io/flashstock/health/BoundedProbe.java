package io.flashstock.health;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;

/**
 * A readiness probe of a dependency that answers in bounded time: the probe of the dependency runs on a thread of its
 * own, one at a time, and a check waits for it at most {@code timeout}. A dependency that accepts connections but
 * never answers (hung) makes the check answer "no answer" after the timeout while the probe goes on in the
 * background; checks meanwhile wait for that same probe, so a hung dependency does not pile up threads.
 */
final class BoundedProbe implements AutoCloseable {

    private final Callable<Boolean> probe;
    private final Duration timeout;
    private final ExecutorService runner;
    private CompletableFuture<Boolean> current = CompletableFuture.completedFuture(true);

    BoundedProbe(String threadName, Duration timeout, Callable<Boolean> probe) {
        this.probe = probe;
        this.timeout = timeout;
        this.runner = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * The readiness answer for the dependency {@code name}: UP when it answered in time, or when purchases do not
     * need it (then its state is reported in the data, and the pod stays ready).
     */
    HealthCheckResponse check(String name, boolean neededForPurchases) {
        String problem = problem();
        HealthCheckResponseBuilder response = HealthCheckResponse.named(name)
                .status(problem == null || !neededForPurchases)
                .withData("reachable", problem == null)
                .withData("neededForPurchases", neededForPurchases);
        return (problem == null ? response : response.withData("problem", problem)).build();
    }

    /** Null when the dependency answered well in time, else what went wrong (no host names, no commands). */
    private String problem() {
        try {
            return next().get(timeout.toMillis(), TimeUnit.MILLISECONDS) ? null : "validation failed";
        } catch (TimeoutException e) {
            return "no answer within " + timeout.toMillis() + " ms";
        } catch (ExecutionException e) {
            return "cannot connect";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    /** The probe under way, or a new one once the last has finished: never more than one at a time. */
    private synchronized CompletableFuture<Boolean> next() {
        if (current.isDone()) {
            current = CompletableFuture.supplyAsync(() -> {
                try {
                    return probe.call();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, runner);
        }
        return current;
    }

    @Override
    public void close() {
        runner.shutdownNow();
    }
}
