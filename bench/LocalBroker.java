import io.flashstock.devservices.KafkaBroker;

/**
 * The Kafka broker of bench/compare.sh's events runs: the service's own dev-mode broker
 * ({@code io.flashstock.devservices.KafkaBroker}: a single-node KRaft {@code kafka_2.13} of the Quarkus BOM's version,
 * in a data directory and on free ports of its own), started from the service build's classes and the broker's jars
 * on this JVM's class path. Prints {@code BOOTSTRAP <host:port>} once it listens, then runs until it is sent SIGTERM,
 * when it stops the broker and deletes its data.
 *
 * <p>Usage: {@code java -cp <the service's classes>:<kafka_2.13 and its dependencies> LocalBroker}.
 */
public final class LocalBroker {

    public static void main(String[] args) throws Exception {
        KafkaBroker broker = KafkaBroker.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                broker.stop(false);
                broker.delete();
            } catch (Exception e) {
                System.err.println("stopping the broker: " + e);
            }
        }));
        System.out.println("BOOTSTRAP " + broker.bootstrapServers());
        System.out.flush();
        Thread.currentThread().join();
    }
}
