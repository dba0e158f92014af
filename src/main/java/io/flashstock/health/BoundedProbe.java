package io.flashstock.health;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.smallrye.mutiny.Uni;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;

/**
 * A readiness probe of a dependency that answers in bounded time and never holds a thread of the service's: the
 * probe of the dependency runs on a thread of its own, one at a time and at most once per {@link #MIN_INTERVAL}
 * (checks in between read the last result), and a check waits for it at most {@code timeout}, without blocking. A
 * dependency that accepts connections but never answers (hung) makes the check answer "no answer" after the timeout
 * while the probe goes on in the background; checks meanwhile wait for that same probe, so a hung dependency piles up
 * no threads, and no caller, however often it asks, makes the dependency probed more than once a second.
 */
final class BoundedProbe implements AutoCloseable {

    /** Probes start at most this often; checks in between answer what the last one found. */
    private static final Duration MIN_INTERVAL = Duration.ofSeconds(1);

    private final Callable<Boolean> probe;
    private final Duration timeout;
    private final ExecutorService runner;
    private CompletableFuture<Boolean> current = CompletableFuture.completedFuture(true);
    private long startedAt = System.nanoTime() - MIN_INTERVAL.toNanos();

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
    Uni<HealthCheckResponse> check(String name, boolean neededForPurchases) {
        // A copy: the timeout must not complete (or cancel) the probe other checks share.
        return Uni.createFrom().completionStage(next().copy())
                .ifNoItem().after(timeout).fail()
                .onItemOrFailure().transform((answered, failure) -> {
                    String problem = failure instanceof io.smallrye.mutiny.TimeoutException
                            ? "no answer within " + timeout.toMillis() + " ms"
                            : failure != null ? "cannot connect" : answered ? null : "validation failed";
                    HealthCheckResponseBuilder response = HealthCheckResponse.named(name)
                            .status(problem == null || !neededForPurchases)
                            .withData("reachable", problem == null)
                            .withData("neededForPurchases", neededForPurchases);
                    return (problem == null ? response : response.withData("problem", problem)).build();
                });
    }

    /** The probe under way, or the last one's result, or a new one: never more than one at a time. */
    private synchronized CompletableFuture<Boolean> next() {
        long now = System.nanoTime();
        if (current.isDone() && now - startedAt >= MIN_INTERVAL.toNanos()) {
            startedAt = now;
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
