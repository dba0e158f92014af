package io.flashstock.order;

import java.util.EnumMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.error.FlashstockException;
import io.flashstock.support.MetersByTag;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Times confirms and cancels, of orders and of multi-item purchases: {@code flashstock.confirms} and
 * {@code flashstock.cancels} (tags {@code strategy}, {@code kind} {@code order} or {@code purchase}, and
 * {@code outcome}: {@code confirmed}/{@code cancelled}, the problem code, or {@code error}), histograms with the
 * buckets of {@link io.flashstock.support.LatencyHistograms}. The meters are registered once per tag combination and
 * reused.
 */
@ApplicationScoped
public class TransitionTimers {

    /** What is timed: a confirm or a cancel, of an order or of a multi-item purchase. */
    public enum Kind {
        CONFIRM_ORDER("flashstock.confirms", "order", "confirmed"),
        CONFIRM_PURCHASE("flashstock.confirms", "purchase", "confirmed"),
        CANCEL_ORDER("flashstock.cancels", "order", "cancelled"),
        CANCEL_PURCHASE("flashstock.cancels", "purchase", "cancelled");

        private final String meter;
        private final String target;
        private final String done;

        Kind(String meter, String target, String done) {
            this.meter = meter;
            this.target = target;
            this.done = done;
        }
    }

    private final EnumMap<Kind, MetersByTag<Timer>> timers = new EnumMap<>(Kind.class);

    TransitionTimers(FlashstockConfig config, MeterRegistry registry) {
        String strategy = config.strategy();
        for (Kind kind : Kind.values()) {
            timers.put(kind, new MetersByTag<>(outcome -> Timer.builder(kind.meter)
                    .description("Confirms or cancels and their time, by kind and outcome")
                    .tags("strategy", strategy, "kind", kind.target, "outcome", outcome).register(registry)));
        }
    }

    /** Runs {@code transition} and records its time under its outcome; rethrows what it throws. */
    public <T> T time(Kind kind, Supplier<T> transition) {
        long start = System.nanoTime();
        String outcome = "error";
        try {
            T result = transition.get();
            outcome = kind.done;
            return result;
        } catch (FlashstockException e) {
            outcome = e.code().code();
            throw e;
        } finally {
            timers.get(kind).get(outcome).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        }
    }
}
