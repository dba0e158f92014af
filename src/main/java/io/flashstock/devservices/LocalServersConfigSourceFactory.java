package io.flashstock.devservices;

import java.util.List;
import java.util.Map;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.PropertiesConfigSource;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * Dev mode only ({@code quarkus:dev}, profile {@code dev}): where nothing answers at the configured MySQL or Redis,
 * starts embedded ones through {@link LocalServers}, and where nothing answers at {@code kafka.bootstrap.servers}
 * (default {@value LocalKafka#DEFAULT_BOOTSTRAP_SERVERS}) a local broker through {@link LocalKafka} (not with
 * {@code flashstock.events.enabled=false}), and points the service at them. Turned off by
 * {@code flashstock.local-servers.enabled=false}.
 * <p>
 * The overrides have ordinal {@value #ORDINAL}: above {@code application.properties} (250, {@code %dev.} values
 * included), below environment variables (300) and system properties (400). A URL set explicitly through one of
 * those wins as usual, so for it nothing is started. Building the config again (dev mode builds it more than once,
 * and again on every hot reload) only costs a TCP connect per server: the embedded servers are started once per JVM.
 */
public class LocalServersConfigSourceFactory implements ConfigSourceFactory {

    public static final String ENABLED = "flashstock.local-servers.enabled";
    public static final int ORDINAL = 275;
    /** {@code false}: no events, so no local Kafka broker either. */
    static final String EVENTS_ENABLED = "flashstock.events.enabled";
    static final String NAME = "flashstock embedded local servers (dev mode)";

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        if (!context.getProfiles().contains("dev")) {
            return List.of();
        }
        String enabled = context.getValue(ENABLED).getValue();
        if (enabled != null && "false".equalsIgnoreCase(enabled.trim())) {
            return List.of();
        }
        String jdbcUrl = overridable(context.getValue(LocalServers.JDBC_URL), LocalServers.DEFAULT_JDBC_URL);
        String redisHosts = overridable(context.getValue(LocalServers.REDIS_HOSTS), LocalServers.DEFAULT_REDIS_HOSTS);
        Map<String, String> overrides = new java.util.LinkedHashMap<>(LocalServers.ensure(jdbcUrl, redisHosts));
        if (!"false".equalsIgnoreCase(String.valueOf(context.getValue(EVENTS_ENABLED).getValue()).trim())) {
            overrides.putAll(LocalKafka.ensure(overridable(context.getValue(LocalKafka.BOOTSTRAP_SERVERS),
                    LocalKafka.DEFAULT_BOOTSTRAP_SERVERS)));
        }
        if (overrides.isEmpty()) {
            return List.of();
        }
        return List.of(new PropertiesConfigSource(overrides, NAME, ORDINAL));
    }

    /** The configured value (or the default), or null when it comes from a source our overrides cannot beat. */
    private static String overridable(ConfigValue value, String defaultValue) {
        if (value == null || value.getValue() == null || value.getValue().isBlank()) {
            return defaultValue;
        }
        return value.getConfigSourceOrdinal() > ORDINAL ? null : value.getValue();
    }
}
