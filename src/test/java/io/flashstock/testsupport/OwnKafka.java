package io.flashstock.testsupport;

import java.io.IOException;

import io.flashstock.devservices.KafkaBroker;

/**
 * A single-node KRaft broker of the test's own ({@link KafkaBroker}: a child JVM with its own data directory and free
 * ports): the only Kafka a test may kill, freeze or restart. The broker dev mode and other tests share
 * ({@code LocalKafka}) is never touched by such tests.
 */
public final class OwnKafka implements AutoCloseable {

    private final KafkaBroker broker;

    private OwnKafka(KafkaBroker broker) {
        this.broker = broker;
    }

    /** Formats a new broker's storage, starts it and waits until it listens (a few seconds). */
    public static OwnKafka start() {
        return new OwnKafka(starting("start a Kafka broker of the test's own", KafkaBroker::start));
    }

    /** {@code 127.0.0.1:<port>}, for {@code kafka.bootstrap.servers}. */
    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    /** Kills the broker (SIGKILL, a crash); {@link #launch()} brings it back on the same port with its data. */
    public void stop() {
        try {
            broker.stop(true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Starts the stopped broker again (same port, same data) and waits until it listens. */
    public void launch() {
        starting("restart the Kafka broker", () -> {
            broker.launch();
            return broker;
        });
    }

    private interface Launch {
        KafkaBroker run() throws IOException, InterruptedException;
    }

    private static KafkaBroker starting(String what, Launch launch) {
        try {
            return launch.run();
        } catch (IOException e) {
            throw new IllegalStateException("cannot " + what, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + what, e);
        }
    }

    /** Freezes the broker ({@code SIGSTOP}): connections stay open, nothing is answered, as a hung broker does. */
    public void pause() {
        Signals.send(running(), "STOP", "Kafka broker " + bootstrapServers());
    }

    /** Lets a paused broker run again ({@code SIGCONT}). */
    public void resume() {
        Signals.send(running(), "CONT", "Kafka broker " + bootstrapServers());
    }

    private Process running() {
        Process process = broker.process();
        if (process == null) {
            throw new IllegalStateException("the Kafka broker is not running");
        }
        return process;
    }

    /** Stops the broker and deletes its data. */
    @Override
    public void close() {
        try {
            broker.delete();
        } catch (IOException e) {
            // a temp directory left behind
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
