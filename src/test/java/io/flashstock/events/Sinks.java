package io.flashstock.events;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Map;

import io.flashstock.config.EventsConfig;
import io.flashstock.config.FlashstockConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** {@link EventSink}s built by hand for plain unit tests: no Quarkus, only the settings the sink reads. */
final class Sinks {

    static final String TOPIC = "flashstock.events.test";

    private Sinks() {
    }

    /** A sink with {@code flashstock.events.enabled} and {@code kafka.bootstrap.servers} (null: unset) as given. */
    static EventSink sink(boolean enabled, String bootstrapServers, Duration sendTimeout) {
        return withKafkaConfig(enabled, bootstrapServers == null ? Map.of()
                : Map.of(EventSink.BOOTSTRAP_SERVERS, bootstrapServers), sendTimeout);
    }

    /** A sink given the {@code kafka.*} properties (without the prefix) as the Quarkus Kafka client passes them. */
    static EventSink withKafkaConfig(boolean enabled, Map<String, Object> kafka, Duration sendTimeout) {
        return new EventSink(config(enabled, sendTimeout), kafka, new SimpleMeterRegistry());
    }

    /** FlashstockConfig with only {@code events()} answered: the sink reads nothing else. */
    private static FlashstockConfig config(boolean enabled, Duration sendTimeout) {
        EventsConfig events = (EventsConfig) Proxy.newProxyInstance(EventsConfig.class.getClassLoader(),
                new Class<?>[] { EventsConfig.class }, (proxy, method, args) -> switch (method.getName()) {
                    case "enabled" -> enabled;
                    case "topic" -> TOPIC;
                    case "maxBacklog" -> 1_000_000L;
                    case "sendTimeout" -> sendTimeout;
                    case "linger" -> Duration.ofMillis(5);
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        return (FlashstockConfig) Proxy.newProxyInstance(FlashstockConfig.class.getClassLoader(),
                new Class<?>[] { FlashstockConfig.class }, (proxy, method, args) -> {
                    if (method.getName().equals("events")) {
                        return events;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }
}
