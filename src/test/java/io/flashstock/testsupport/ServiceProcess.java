package io.flashstock.testsupport;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The packaged service ({@code target/quarkus-app/quarkus-run.jar}) as a process of the test's own, on a free port,
 * configured with system properties: a test can kill it ({@code SIGKILL}, as a crashed or evicted pod), start it
 * again, or pause and resume it ({@code SIGSTOP}/{@code SIGCONT}, a pod frozen by a long GC pause or a noisy
 * neighbour). Its output goes to {@code target/service-<name>.log}.
 */
public final class ServiceProcess implements AutoCloseable {

    private static final Path JAR = Path.of("target", "quarkus-app", "quarkus-run.jar");

    private final String name;
    private final Map<String, String> settings;
    private final int port;
    /** The management port (metrics, OpenAPI): one of its own, as two instances cannot share 9000. */
    private final int managementPort = Ports.free();
    private Process process;

    private ServiceProcess(String name, Map<String, String> settings, int port) {
        this.name = name;
        this.settings = settings;
        this.port = port;
    }

    /** Starts the packaged service with {@code settings} and waits until it is ready. */
    public static ServiceProcess start(String name, Map<String, String> settings) {
        if (!Files.exists(JAR)) {
            throw new IllegalStateException(JAR + " is missing: package the application first");
        }
        ServiceProcess service = new ServiceProcess(name, Map.copyOf(settings), Ports.free());
        try {
            service.launch();
        } catch (RuntimeException e) {
            service.close(); // one that never got ready must not outlive the test
            throw e;
        }
        return service;
    }

    /**
     * The settings of a service running {@code strategy} ({@code db-optimistic}, {@code redis-lock},
     * {@code redis-lua:write-through}, {@code redis-lua:write-behind}) on the MySQL at {@code jdbcUrl} (the tests'
     * user) and the Redis at {@code redisHosts}, with the relay's claim-after at 2 s; a map the caller may add to.
     */
    public static Map<String, String> settings(String strategy, String jdbcUrl, String redisHosts) {
        String[] parts = strategy.split(":");
        Map<String, String> settings = new HashMap<>();
        settings.put("quarkus.profile", parts[0]);
        settings.put("quarkus.datasource.jdbc.url", jdbcUrl);
        settings.put("quarkus.datasource.username", LocalServersResource.username());
        settings.put("quarkus.datasource.password", LocalServersResource.password());
        settings.put("quarkus.redis.hosts", redisHosts);
        settings.put("flashstock.lua.claim-after", "2s");
        if (parts.length > 1) {
            settings.put("flashstock.lua.persistence", parts[1]);
        }
        return settings;
    }

    /** {@code http://127.0.0.1:<port>} */
    public URI base() {
        return URI.create("http://127.0.0.1:" + port);
    }

    public int port() {
        return port;
    }

    /** {@code http://127.0.0.1:<management port>}: metrics at {@code /q/metrics}. */
    public URI management() {
        return URI.create("http://127.0.0.1:" + managementPort);
    }

    /** Kills the process at once ({@code SIGKILL}): nothing in it runs to completion, nothing is flushed. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Asks the process to stop ({@code SIGTERM}, as the kubelet does), without waiting for it. */
    public void terminate() {
        process.destroy();
    }

    /** Whether the process has exited, waiting at most {@code within}. */
    public boolean exits(Duration within) {
        try {
            return process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Starts the service again on the same port and waits until it is ready. */
    public void restart() {
        launch();
    }

    /** Freezes the process ({@code SIGSTOP}): its connections stay open, nothing in it runs. */
    public void pause() {
        signal("STOP");
    }

    /** Lets a paused process run again ({@code SIGCONT}). */
    public void resume() {
        signal("CONT");
    }

    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            signal("CONT");
            process.destroy();
            try {
                if (!process.waitFor(15, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
    }

    private void launch() {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.add("-Xmx512m");
        // the test JVMs' options (pom.xml, test.jvm-options): C1 only
        for (String option : System.getProperty("test.jvm-options", "").trim().split("\\s+")) {
            if (!option.isEmpty()) {
                command.add(option);
            }
        }
        command.add("-Dquarkus.http.port=" + port);
        command.add("-Dquarkus.http.host=127.0.0.1");
        command.add("-Dquarkus.management.port=" + managementPort);
        command.add("-Dquarkus.management.host=127.0.0.1");
        // The tests' token issuer and key; a production profile has none of its own and would not start without.
        Tokens.verification().forEach((key, value) -> command.add("-D" + key + "=" + value));
        settings.forEach((key, value) -> command.add("-D" + key + "=" + value));
        command.add("-jar");
        command.add(JAR.toString());
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(Path.of("target", "service-" + name + ".log")
                            .toFile()))
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the service " + name, e);
        }
        awaitReady(Duration.ofSeconds(120));
    }

    private void awaitReady(Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        HttpRequest ready = HttpRequest.newBuilder(base().resolve("/q/health/ready")).timeout(Duration.ofSeconds(5))
                .GET().build();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the service " + name + " exited with " + process.exitValue()
                        + " (see target/service-" + name + ".log)");
            }
            if (Http.send(ready).status() == 200) {
                return;
            }
            Pause.sleep(200);
        }
        throw new IllegalStateException("the service " + name + " was not ready within " + within);
    }

    private void signal(String signal) {
        Signals.send(process, signal, "the service " + name);
    }

}
