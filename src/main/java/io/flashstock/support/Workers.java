package io.flashstock.support;

import java.util.function.Supplier;

import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;

/**
 * The one way code on the event loop hands blocking work (MySQL, a blocking Redis call, a lock wait) to a worker
 * thread: the work runs there, and its result or its exception is the {@link Uni}'s.
 */
public final class Workers {

    private Workers() {
    }

    /** Runs {@code work} on a worker thread when subscribed. */
    public static <T> Uni<T> call(Supplier<T> work) {
        return Uni.createFrom().item(work).runSubscriptionOn(Infrastructure.getDefaultWorkerPool());
    }
}
