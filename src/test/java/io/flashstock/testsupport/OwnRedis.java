package io.flashstock.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A redis-server of the test's own, on a free port of 127.0.0.1, without persistence: the only Redis a test may flush,
 * kill or restart. The shared Redis of the machine is never touched by such tests.
 * <p>
 * Runs the installed {@code redis-server}; where none is installed, the binary that the embedded-redis library ships
 * (a test-scope fallback, like the one {@code LocalServers} uses for dev mode).
 */
public final class OwnRedis implements AutoCloseable {

    private static final String LOOPBACK = "127.0.0.1";

    private final int port;
    private final Path dir;
    /** Settings beyond the standalone, non-persistent ones (a cluster node's). */
    private final List<String> extra;
    private Process process;
    private Object embedded;

    private OwnRedis(int port, Path dir, List<String> extra) {
        this.port = port;
        this.dir = dir;
        this.extra = extra;
    }

    /** Starts a new server on a free port and waits until it answers PING. */
    public static OwnRedis start() {
        return start(false);
    }

    /**
     * Starts a new server on a free port, with cluster mode on when {@code clusterNode} ({@link OwnRedisCluster} gives
     * it slots): its node id and slots are kept in its folder's nodes.conf, so a {@link #restart()} brings the same
     * node back, owning the same slots, with no data, which is what a shard that lost its data looks like.
     */
    public static OwnRedis start(boolean clusterNode) {
        try {
            Path dir = Files.createTempDirectory("flashstock-own-redis");
            List<String> extra = clusterNode
                    ? List.of("--cluster-enabled", "yes", "--cluster-config-file", dir.resolve("nodes.conf").toString(),
                            "--cluster-node-timeout", "2000")
                    : List.of();
            OwnRedis redis = new OwnRedis(Ports.free(), dir, extra);
            redis.launch();
            return redis;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start a redis-server of the test's own", e);
        }
    }

    /** {@code redis://127.0.0.1:<port>} */
    public String hosts() {
        return "redis://" + LOOPBACK + ":" + port;
    }

    public int port() {
        return port;
    }

    /** What a crash and restart without persistence does: the process dies, every connection drops, data is gone. */
    public void restart() {
        stop();
        launch();
    }

    /** Kills the server (SIGKILL); {@link #restart()} or {@link #launch()} brings it back empty on the same port. */
    public void stop() {
        if (process != null) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            process = null;
        }
        if (embedded != null) {
            try {
                embedded.getClass().getMethod("stop").invoke(embedded);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
            embedded = null;
        }
        awaitPort(false);
    }

    /** Freezes the server ({@code SIGSTOP}): connections stay open, nothing is answered, as a hung Redis does. */
    public void pause() {
        Signals.send(installedProcess(), "STOP", "redis-server on port " + port);
    }

    /** Lets a paused server run again ({@code SIGCONT}). */
    public void resume() {
        Signals.send(installedProcess(), "CONT", "redis-server on port " + port);
    }

    private Process installedProcess() {
        if (process == null) {
            throw new IllegalStateException("pausing needs the installed redis-server, running");
        }
        return process;
    }

    /** Starts the server on its port (again); data starts empty. */
    public void launch() {
        List<String> settings = new java.util.ArrayList<>(List.of("--port", String.valueOf(port), "--bind", LOOPBACK,
                "--save", "", "--appendonly", "no", "--dir", dir.toString()));
        settings.addAll(extra);
        String binary = installedRedisServer();
        try {
            if (binary != null) {
                process = new ProcessBuilder(concat(binary, settings))
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("redis.log").toFile())
                        .start();
            } else {
                embedded = startEmbedded();
            }
        } catch (IOException | ReflectiveOperationException e) {
            throw new IllegalStateException("cannot start redis-server on port " + port, e);
        }
        awaitPort(true);
        awaitPong();
    }

    @Override
    public void close() {
        stop();
    }

    private Object startEmbedded() throws ReflectiveOperationException {
        // redis.embedded.RedisServer.newRedisServer().port(p).bind(..).setting(..).build().start()
        Class<?> serverClass = Class.forName("redis.embedded.RedisServer");
        Object builder = serverClass.getMethod("newRedisServer").invoke(null);
        builder = builder.getClass().getMethod("port", int.class).invoke(builder, port);
        builder = builder.getClass().getMethod("bind", String.class).invoke(builder, LOOPBACK);
        builder = builder.getClass().getMethod("setting", String.class).invoke(builder, "save \"\"");
        builder = builder.getClass().getMethod("setting", String.class).invoke(builder, "appendonly no");
        for (int i = 0; i + 1 < extra.size(); i += 2) {
            builder = builder.getClass().getMethod("setting", String.class)
                    .invoke(builder, extra.get(i).substring(2) + " " + extra.get(i + 1));
        }
        Object server = builder.getClass().getMethod("build").invoke(builder);
        server.getClass().getMethod("start").invoke(server);
        return server;
    }

    private static String installedRedisServer() {
        String path = System.getenv("PATH");
        for (String entry : (path == null ? "" : path).split(File.pathSeparator)) {
            File candidate = new File(entry, "redis-server");
            if (candidate.canExecute()) {
                return candidate.getPath();
            }
        }
        return null;
    }

    private static List<String> concat(String first, List<String> rest) {
        java.util.ArrayList<String> all = new java.util.ArrayList<>();
        all.add(first);
        all.addAll(rest);
        return all;
    }

    private void awaitPort(boolean open) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            if (accepts() == open) {
                return;
            }
            Pause.sleep(20);
        }
        throw new IllegalStateException("redis-server on port " + port + (open ? " did not start" : " did not stop")
                + " within 10 s (log: " + dir.resolve("redis.log") + ")");
    }

    private void awaitPong() {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if ("PONG".equals(command("PING").get(0))) {
                    return;
                }
            } catch (IOException e) {
                // loading or not listening yet
            }
            Pause.sleep(20);
        }
        throw new IllegalStateException("redis-server on port " + port + " does not answer PING");
    }

    /** FLUSHALL, sent to the server directly (not through any proxy the service may use). */
    public void flushAll() {
        try {
            command("FLUSHALL");
        } catch (IOException e) {
            throw new IllegalStateException("FLUSHALL failed on port " + port, e);
        }
    }

    /** The values of a hash's fields (null where missing), read from the server directly. */
    public List<String> hmget(String key, String... fields) {
        List<String> args = new java.util.ArrayList<>(List.of("HMGET", key));
        args.addAll(List.of(fields));
        try {
            return command(args.toArray(String[]::new));
        } catch (IOException e) {
            throw new IllegalStateException("HMGET failed on port " + port, e);
        }
    }

    /** Sends one command to this server directly; see {@link #command}. An error reply or no answer throws. */
    public List<String> call(String... args) {
        try {
            return command(args);
        } catch (IOException e) {
            throw new IllegalStateException(args[0] + " failed on port " + port + ": " + e.getMessage(), e);
        }
    }

    /**
     * Sends one command (RESP2 array of bulk strings) on a connection of its own; the reply as a list: one element
     * for a simple string, integer or bulk string, the elements of an array (null for a nil). An error reply throws.
     */
    private List<String> command(String... args) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(LOOPBACK, port), 500);
            socket.setSoTimeout(2_000);
            StringBuilder request = new StringBuilder("*").append(args.length).append("\r\n");
            for (String arg : args) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                request.append('$').append(bytes.length).append("\r\n").append(arg).append("\r\n");
            }
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = new java.io.BufferedInputStream(socket.getInputStream());
            String head = line(in);
            List<String> reply = new java.util.ArrayList<>();
            switch (head.charAt(0)) {
                case '+', ':' -> reply.add(head.substring(1));
                case '$' -> reply.add(bulk(in, head));
                case '*' -> {
                    int count = Integer.parseInt(head.substring(1));
                    for (int i = 0; i < count; i++) {
                        reply.add(bulk(in, line(in)));
                    }
                }
                default -> throw new IOException("redis error: " + head);
            }
            return reply;
        }
    }

    private static String bulk(InputStream in, String head) throws IOException {
        int length = Integer.parseInt(head.substring(1));
        if (length < 0) {
            return null;
        }
        String value = new String(in.readNBytes(length), StandardCharsets.UTF_8);
        in.readNBytes(2);
        return value;
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new IOException("connection closed");
            }
            line.append((char) c);
        }
        in.read();
        return line.toString();
    }

    private boolean accepts() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(LOOPBACK, port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

}
