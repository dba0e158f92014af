package io.flashstock.events;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A plain consumer of one topic for the tests, without a group: reads every partition from where it ended when the
 * reader was opened, so records a test sends after {@link #open} are all it sees, whatever earlier tests left there.
 */
final class TopicReader implements AutoCloseable {

    private final KafkaConsumer<String, byte[]> consumer;

    private TopicReader(KafkaConsumer<String, byte[]> consumer) {
        this.consumer = consumer;
    }

    /** Opens a reader at the current end of the topic (creating the topic if the broker auto-creates). */
    static TopicReader open(String bootstrapServers, String topic) {
        KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.CLIENT_ID_CONFIG, "flashstock-test-reader-" + UUID.randomUUID(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, true),
                new StringDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> partitions = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (partitions.isEmpty() && System.nanoTime() < deadline) {
            consumer.partitionsFor(topic, Duration.ofSeconds(10))
                    .forEach(p -> partitions.add(new TopicPartition(p.topic(), p.partition())));
        }
        if (partitions.isEmpty()) {
            consumer.close();
            throw new IllegalStateException("topic " + topic + " has no partitions at " + bootstrapServers);
        }
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position);
        return new TopicReader(consumer);
    }

    /** Polls until {@code count} records arrived or {@code within} passed, then a little longer for any surplus. */
    List<ConsumerRecord<String, byte[]>> read(int count, Duration within) {
        List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
        long deadline = System.nanoTime() + within.toNanos();
        while (records.size() < count && System.nanoTime() < deadline) {
            consumer.poll(Duration.ofMillis(200)).forEach(records::add);
        }
        consumer.poll(Duration.ofMillis(500)).forEach(records::add);
        return records;
    }

    @Override
    public void close() {
        consumer.close(Duration.ofSeconds(2));
    }
}
