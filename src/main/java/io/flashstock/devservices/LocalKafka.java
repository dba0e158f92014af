package io.flashstock.devservices;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jboss.logging.Logger;

/**
 * Fresh-machine fallback for {@code quarkus:dev} and the tests, as {@link LocalServers} is for MySQL and Redis: where
 * nothing answers at the configured {@value #BOOTSTRAP_SERVERS}, starts a single-node KRaft broker
 * ({@link KafkaBroker}, a child JVM) on free ports of 127.0.0.1 and returns the override that points the service at
 * it.
 * <p>
 * The broker ({@code org.apache.kafka:kafka_2.13}) is a {@code provided}-scope dependency: on the dev-mode and test
 * class path, never in the packaged application, where {@link #ensure} finds no broker jar and returns no override.
 * Neither this class nor {@link KafkaBroker} links to a class of the broker (it runs in the child process), so neither
 * the JVM nor a native build has anything to resolve.
 * <p>
 * Started at most once per JVM whatever class loader asks (dev mode's hot reloads, the test framework): the address
 * lives in the system property {@value #LOCAL_KAFKA_BOOTSTRAP}, and a JVM exit stops the broker by its pid and deletes
 * its data.
 */
public final class LocalKafka {

    /** The Kafka client's address key, read by the service (issue 34 names it). */
    public static final String BOOTSTRAP_SERVERS = "kafka.bootstrap.servers";
    /** What dev mode expects when nothing sets {@value #BOOTSTRAP_SERVERS}. */
    public static final String DEFAULT_BOOTSTRAP_SERVERS = "127.0.0.1:9092";
    /** JVM-wide: {@code 127.0.0.1:<port>} of the local broker once started. */
    public static final String LOCAL_KAFKA_BOOTSTRAP = "io.flashstock.local.kafka-bootstrap";
    /** JVM-wide: why the local broker could not be started (so that it is not retried on every call). */
    static final String LOCAL_KAFKA_FAILURE = "io.flashstock.local.kafka-failure";

    /** Interned, hence one monitor for the JVM whatever class loader loaded this class (as in LocalServers). */
    private static final String JVM_WIDE_LOCK = "io.flashstock.devservices.LocalKafka.lock";

    private static final Logger LOG = Logger.getLogger(LocalKafka.class);

    private LocalKafka() {
    }

    /**
     * Makes sure a broker answers at the first address of {@code bootstrapServers}, starting the local one where
     * none does.
     *
     * @param bootstrapServers {@code host:port[,host:port...]}; {@code null} or blank to leave Kafka alone
     * @return {@value #BOOTSTRAP_SERVERS} pointing at the local broker when it is in use; empty when the configured
     *         broker answers, the address cannot be parsed, or the broker is not on the class path (production)
     */
    public static Map<String, String> ensure(String bootstrapServers) {
        Map<String, String> overrides = new LinkedHashMap<>();
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            return overrides;
        }
        ServerAddresses.HostPort target = ServerAddresses.HostPort.parse(bootstrapServers.trim(), 9092);
        if (target == null) {
            LOG.debugf("Not checking %s: cannot read host and port from it", bootstrapServers);
            return overrides;
        }
        String local;
        synchronized (JVM_WIDE_LOCK) {
            if (LocalServers.answers(target.host, target.port)) {
                return overrides;
            }
            local = System.getProperty(LOCAL_KAFKA_BOOTSTRAP);
            ServerAddresses.HostPort started = local == null ? null : ServerAddresses.HostPort.parse(local, 9092);
            if (started == null || !LocalServers.answers(started.host, started.port)) {
                local = start(target, bootstrapServers);
                if (local == null) {
                    return overrides;
                }
            }
        }
        overrides.put(BOOTSTRAP_SERVERS, local);
        return overrides;
    }

    /** Starts the local broker; its address, or null when it cannot be started (logged once). */
    private static String start(ServerAddresses.HostPort target, String configured) {
        String failure = System.getProperty(LOCAL_KAFKA_FAILURE);
        if (failure != null) {
            LOG.debugf("Nothing answers at %s:%d and the local Kafka broker could not be started earlier: %s",
                    target.host, target.port, failure);
            return null;
        }
        if (KafkaBroker.classPath().isEmpty()) {
            LOG.debugf("Nothing answers at %s:%d; no Kafka broker on the class path", target.host, target.port);
            return null;
        }
        long begin = System.nanoTime();
        KafkaBroker broker;
        try {
            broker = KafkaBroker.start();
        } catch (Exception | LinkageError e) {
            System.setProperty(LOCAL_KAFKA_FAILURE, String.valueOf(e));
            LOG.warnf(e, "Nothing answers at %s:%d (%s) and the local Kafka broker failed to start; start Kafka there "
                    + "or point %s elsewhere", target.host, target.port, configured, BOOTSTRAP_SERVERS);
            return null;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                broker.delete();
            } catch (Throwable ignored) {
                // the JVM is going away
            }
        }, "flashstock-local-kafka-stop"));
        String address = broker.bootstrapServers();
        System.setProperty(LOCAL_KAFKA_BOOTSTRAP, address);
        LOG.infof("Nothing answers at %s:%d (%s), so flashstock started a single-node Kafka broker (KRaft, pid %d) on "
                + "%s (data in %s) in %d ms; it stops when this JVM exits (flashstock.local-servers.enabled=false "
                + "turns this off)", target.host, target.port, BOOTSTRAP_SERVERS, broker.process().pid(), address,
                broker.directory(), (System.nanoTime() - begin) / 1_000_000);
        return address;
    }
}
