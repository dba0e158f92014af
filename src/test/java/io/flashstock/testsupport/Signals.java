package io.flashstock.testsupport;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * {@code kill -<signal>} for a process a test started itself (a service instance, a redis-server of its own): never
 * for a shared server.
 */
final class Signals {

    private Signals() {
    }

    /** Sends {@code signal} (STOP, CONT, ...) to {@code process}; {@code what} names it in a failure. */
    static void send(Process process, String signal, String what) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start();
            if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " failed for " + what);
            }
        } catch (IOException e) {
            throw new IllegalStateException("kill -" + signal + " failed for " + what, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
