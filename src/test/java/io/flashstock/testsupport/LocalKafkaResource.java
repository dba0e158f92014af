package io.flashstock.testsupport;

import java.util.Locale;
import java.util.Map;

import io.flashstock.devservices.LocalKafka;

/**
 * The shared MySQL and Redis of {@link LocalServersResource}, with events on: {@code kafka.bootstrap.servers} is the
 * configured one ({@code -Dkafka.bootstrap.servers} or {@code KAFKA_BOOTSTRAP_SERVERS}, by default
 * {@value LocalKafka#DEFAULT_BOOTSTRAP_SERVERS}), or, where nothing answers there, the local broker that
 * {@link LocalKafka} starts once per JVM, as dev mode does ({@code flashstock.local-servers.enabled=false} turns
 * that off). The other test classes run with events off (no
 * {@code kafka.bootstrap.servers}), so they pay for no broker. Tests that stop or freeze Kafka use
 * {@link OwnKafkaResource} instead.
 */
public class LocalKafkaResource extends LocalServersResource {

    private static volatile String bootstrapServers;

    @Override
    public Map<String, String> start() {
        Map<String, String> settings = super.start();
        settings.put(LocalKafka.BOOTSTRAP_SERVERS, bootstrapServers());
        return settings;
    }

    /** The broker's address, starting the local broker where nothing answers at the configured one. */
    public static synchronized String bootstrapServers() {
        if (bootstrapServers == null) {
            String configured = System.getProperty(LocalKafka.BOOTSTRAP_SERVERS);
            if (configured == null) {
                configured = System.getenv(LocalKafka.BOOTSTRAP_SERVERS.replace('.', '_').toUpperCase(Locale.ROOT));
            }
            if (configured == null) {
                configured = LocalKafka.DEFAULT_BOOTSTRAP_SERVERS;
            }
            String localServers = System.getProperty("flashstock.local-servers.enabled",
                    System.getenv().getOrDefault("FLASHSTOCK_LOCAL_SERVERS_ENABLED", "true"));
            bootstrapServers = "false".equalsIgnoreCase(localServers.trim()) ? configured
                    : LocalKafka.ensure(configured).getOrDefault(LocalKafka.BOOTSTRAP_SERVERS, configured);
        }
        return bootstrapServers;
    }
}
