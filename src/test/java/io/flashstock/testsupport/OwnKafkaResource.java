package io.flashstock.testsupport;

import java.util.Map;

import io.flashstock.devservices.LocalKafka;

/**
 * The shared MySQL and Redis of {@link LocalServersResource}, and a Kafka broker of the test class's own
 * ({@link OwnKafka}) with events on: for tests that stop, kill or freeze Kafka. The test reaches the broker through
 * {@link #server()}.
 */
public class OwnKafkaResource extends LocalServersResource {

    private static volatile OwnKafka current;

    @Override
    public Map<String, String> start() {
        OwnKafka kafka = OwnKafka.start();
        current = kafka;
        Map<String, String> settings = super.start();
        settings.put(LocalKafka.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
        return settings;
    }

    @Override
    public void stop() {
        OwnKafka kafka = current;
        current = null;
        if (kafka != null) {
            kafka.close();
        }
    }

    /** The broker the running test class's application uses. */
    public static OwnKafka server() {
        OwnKafka kafka = current;
        if (kafka == null) {
            throw new IllegalStateException("no OwnKafkaResource is active for this test class");
        }
        return kafka;
    }
}
