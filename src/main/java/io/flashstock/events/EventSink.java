package io.flashstock.events;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import io.flashstock.config.EventsConfig;
import io.flashstock.config.FlashstockConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.common.annotation.Identifier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jboss.logging.Logger;

/**
 * The one Kafka producer of a pod, for the outbox publisher (issue 34): sends a batch of events to
 * {@code flashstock.events.topic} and waits, bounded by {@code flashstock.events.send-timeout}, for the broker to
 * acknowledge each, so that the publisher marks published only what Kafka holds.
 * <p>
 * The producer is idempotent with {@code acks=all} and at most 5 requests in flight per connection: the broker drops
 * the duplicates of its retries and keeps each partition's records in the order they were sent, so one item's events
 * (keyed by sku) arrive in order. It is created on the first send, so a pod starts and serves whether Kafka answers or
 * not, and closed at shutdown. Purchases never come here, and no readiness check looks at Kafka: a Kafka outage delays
 * events, never a sale.
 * <p>
 * Events are on when {@code kafka.bootstrap.servers} is set and {@code flashstock.events.enabled} is true. Every other
 * {@code kafka.*} property (TLS, SASL, client id) is passed to the producer as the Quarkus Kafka client reads it; the
 * settings above that ordering and acknowledgement depend on are this class's, whatever the configuration says.
 */
@ApplicationScoped
public class EventSink {

    private static final Logger LOG = Logger.getLogger(EventSink.class);
    static final String BOOTSTRAP_SERVERS = "bootstrap.servers";

    private final EventsConfig config;
    private final Map<String, Object> kafkaConfig;
    private final boolean enabled;
    private final Counter acked;
    private final Counter failed;
    private Producer<String, byte[]> producer;
    private boolean closed;

    @Inject
    EventSink(FlashstockConfig config, @Identifier("default-kafka-broker") Map<String, Object> kafkaConfig,
            MeterRegistry registry) {
        this.config = config.events();
        this.kafkaConfig = kafkaConfig;
        Object bootstrap = kafkaConfig.get(BOOTSTRAP_SERVERS);
        this.enabled = this.config.enabled() && bootstrap != null && !bootstrap.toString().isBlank();
        this.acked = Counter.builder("flashstock.events.acked")
                .description("Events the broker acknowledged").register(registry);
        this.failed = Counter.builder("flashstock.events.failed")
                .description("Events not acknowledged within flashstock.events.send-timeout (left for a retry)")
                .register(registry);
    }

    /** Whether events are on: {@code kafka.bootstrap.servers} set and {@code flashstock.events.enabled}. */
    public boolean enabled() {
        return enabled;
    }

    public String topic() {
        return config.topic();
    }

    /**
     * Sends the events in order and waits until the broker acknowledged all of them, or one failed, or
     * {@code send-timeout} passed: never longer, Kafka down included. After a failure the rest of the batch is not
     * handed to the producer (with Kafka down each would wait as long again); those count as not acknowledged.
     *
     * @return which events the broker acknowledged; with events off, none
     */
    public SentBatch send(List<OutgoingEvent> events) {
        int n = events.size();
        boolean[] ack = new boolean[n];
        if (!enabled) {
            return new SentBatch(events, ack, new IllegalStateException("events are off (kafka.bootstrap.servers "
                    + "unset or flashstock.events.enabled=false)"));
        }
        long deadline = System.nanoTime() + config.sendTimeout().toNanos();
        AtomicReference<Exception> first = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(n);
        int handed = 0;
        try {
            Producer<String, byte[]> p = producer();
            for (; handed < n && first.get() == null && System.nanoTime() < deadline; handed++) {
                int index = handed;
                OutgoingEvent event = events.get(index);
                p.send(record(event), (metadata, error) -> {
                    if (error == null) {
                        synchronized (ack) {
                            ack[index] = true;
                        }
                    } else {
                        first.compareAndSet(null, error);
                    }
                    done.countDown();
                });
            }
        } catch (KafkaException | IllegalStateException e) {
            // the producer could not be created, or is closed or failed for good: a new one next time
            first.compareAndSet(null, e);
            discard();
        }
        for (int i = handed; i < n; i++) {
            done.countDown();
        }
        try {
            done.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            first.compareAndSet(null, e);
        }
        boolean[] result;
        synchronized (ack) {
            result = ack.clone();
        }
        // One reading of the first failure: a callback can still set it after the wait (a broker error just past the
        // deadline), and a batch must never say it failed without saying why.
        Exception failure = first.get();
        SentBatch batch = new SentBatch(events, result, failure);
        int ok = batch.ackedCount();
        acked.increment(ok);
        failed.increment(n - ok);
        if (ok < n) {
            if (failure == null) {
                failure = new org.apache.kafka.common.errors.TimeoutException("no acknowledgement within "
                        + config.sendTimeout());
                batch = new SentBatch(events, result, failure);
            }
            LOG.debugf("%d of %d events not acknowledged: %s", n - ok, n, failure);
        }
        return batch;
    }

    private ProducerRecord<String, byte[]> record(OutgoingEvent event) {
        RecordHeaders headers = new RecordHeaders();
        event.headers().forEach((name, value) -> headers.add(name, value.getBytes(StandardCharsets.UTF_8)));
        return new ProducerRecord<>(config.topic(), null, event.key(), event.value(), headers);
    }

    private synchronized Producer<String, byte[]> producer() {
        if (closed) {
            throw new IllegalStateException("the event sink is closed (shutting down)");
        }
        if (producer == null) {
            producer = new KafkaProducer<>(producerConfig(), new StringSerializer(), new ByteArraySerializer());
            LOG.infof("Events go to topic %s at %s (idempotent producer, acks=all)", config.topic(),
                    kafkaConfig.get(BOOTSTRAP_SERVERS));
        }
        return producer;
    }

    /** {@code kafka.*} as configured, then what this class's guarantees rest on. */
    Map<String, Object> producerConfig() {
        Map<String, Object> props = new HashMap<>(kafkaConfig);
        props.remove("group.id"); // the Quarkus client adds it for consumers; a producer would warn about it
        props.remove(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG);
        props.remove(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);
        props.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
        props.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "flashstock-events");
        long timeout = Math.max(2_000, config.sendTimeout().toMillis());
        long linger = Math.min(config.linger().toMillis(), timeout / 2);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
        props.put(ProducerConfig.RETRIES_CONFIG, Integer.MAX_VALUE);
        // delivery.timeout.ms must be at least linger.ms + request.timeout.ms
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) timeout);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) ((timeout - linger) / 2));
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeout);
        props.put(ProducerConfig.LINGER_MS_CONFIG, (int) linger);
        // a publishing round sends up to flashstock.events.batch-size events (about 0.5 MB at 1,000) and waits for
        // them: in a few requests of 128 KB rather than 32 of the default 16 KB, at most 5 of which are in flight
        props.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, 131_072);
        return props;
    }

    private synchronized void discard() {
        Producer<String, byte[]> p = producer;
        producer = null;
        if (p != null) {
            p.close(Duration.ZERO);
        }
    }

    @PreDestroy
    synchronized void close() {
        closed = true;
        Producer<String, byte[]> p = producer;
        producer = null;
        if (p != null) {
            p.close(Duration.ofSeconds(5));
        }
    }
}
