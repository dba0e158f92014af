package io.flashstock.config;

import java.time.Duration;

import io.smallrye.config.WithDefault;

/**
 * {@code flashstock.events.*}: a group of {@link FlashstockConfig} ({@link FlashstockConfig#events()}), the sale
 * events on Kafka (docs/events.md). The broker's address is not here but in {@code kafka.bootstrap.servers}, with every
 * other {@code kafka.*} client setting (TLS, SASL), as the Quarkus Kafka client reads them: events are on when it is
 * set and {@link #enabled()} is true.
 */
public interface EventsConfig {
    /**
     * {@code false} turns events off even where {@code kafka.bootstrap.servers} is set: nothing connects to Kafka, and
     * dev mode starts no local broker. With {@code true} (the default) events are on exactly when
     * {@code kafka.bootstrap.servers} is set.
     */
    @WithDefault("true")
    boolean enabled();

    /**
     * The topic every event goes to, keyed by sku. The service does not create it: in production create it (its
     * partitions bound how many consumers read in parallel) or let the broker auto-create it; dev mode's and the
     * tests' local broker auto-creates it with 3 partitions.
     */
    @WithDefault("flashstock.events")
    String topic();

    /**
     * Movements not yet published past which {@code flashstock_events_backlog_over_limit} turns 1 (alert on it).
     * Nothing is dropped or refused: the events are derived from the ledger, which is kept anyway, and the sale never
     * waits for the broker; the bound says when the lag needs a person (docs/events.md).
     */
    @WithDefault("100000")
    long maxBacklog();

    /** The CloudEvents {@code source} of every event: tells deployments apart on a shared topic. */
    @WithDefault("/flashstock")
    String source();

    /**
     * How long each pod's publisher waits, once it has published everything it found, before it looks again. While
     * it finds work it goes on at once.
     */
    @WithDefault("200ms")
    Duration interval();

    /**
     * Movements one round of the publisher sends, shared among the items it found pending (up to 200, each at least
     * 50): a hot item's round takes this many of its movements, so one pod publishes about this many events per
     * broker acknowledgement.
     */
    @WithDefault("1000")
    int batchSize();

    /**
     * Longest one batch of events waits for the broker's acknowledgements, and longest a send may wait for the
     * topic's metadata (the Kafka producer's {@code delivery.timeout.ms} and {@code max.block.ms}; its
     * {@code request.timeout.ms} is half of it). With Kafka down, a send fails after this, never hangs; the events
     * stay in the outbox for the next try. A round holds its MySQL transaction for up to this + 15 s, which must stay
     * under the pool sessions' {@code wait_timeout} (30 s: so under 15 s here); a pod refuses to start otherwise.
     */
    @WithDefault("10s")
    Duration sendTimeout();

    /**
     * How long the producer waits for more events of a partition to send them in one request ({@code linger.ms}):
     * fewer, larger requests under load for that much latency. Kept below half of {@link #sendTimeout()}.
     */
    @WithDefault("5ms")
    Duration linger();
}
