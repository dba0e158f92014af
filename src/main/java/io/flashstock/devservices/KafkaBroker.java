package io.flashstock.devservices;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.MalformedURLException;
import java.net.ServerSocket;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;

/**
 * One single-node KRaft Kafka broker (broker and controller in one process) as a child JVM, with a data directory and
 * two loopback ports of its own: for {@link LocalKafka} (dev mode, tests) and for tests that stop or freeze a broker of
 * their own. A child process rather than in this JVM: the broker brings Scala and its own logging, and a test can kill
 * or {@code SIGSTOP} it like a real broker.
 * <p>
 * The broker's classes are {@code org.apache.kafka:kafka_2.13} and its dependencies, {@code provided}-scope (dev-mode
 * and test class path only). This class does not link to them: it only looks up the jars holding them, for the child's
 * class path, so it loads fine in the packaged application too (where {@link #classPath()} finds nothing).
 */
public final class KafkaBroker {

    /** The broker's entry point and the class whose presence says the broker is on the class path. */
    public static final String MAIN_CLASS = "kafka.Kafka";
    private static final String STORAGE_TOOL = "kafka.tools.StorageTool";
    private static final String LOOPBACK = "127.0.0.1";
    /** How long a start may take: it listens in about 20 s on a busy two-core machine. */
    private static final long START_TIMEOUT_MS = 90_000;
    /**
     * File names (Maven artifact ids) of kafka_2.13 and what it depends on: the child's class path takes these from
     * this JVM's jars and nothing else (no Quarkus, whose logging and class loading the broker has no use for).
     */
    private static final List<String> JAR_PREFIXES = List.of("kafka", "scala-", "pcollections-", "HdrHistogram-",
            "hash4j-", "log4j-api-", "log4j-core-", "argparse4j-", "commons-validator-", "commons-beanutils-",
            "commons-digester-", "commons-logging-", "commons-collections-", "jackson-", "snakeyaml-", "jopt-simple-",
            "jose4j-", "metrics-core-", "re2j-", "zstd-jni-", "snappy-java-", "lz4-java-", "slf4j-api-");

    private final Path dir;
    private final int port;
    private final int controllerPort;
    private final String classPath;
    private Process process;

    private KafkaBroker(Path dir, int port, int controllerPort, String classPath) {
        this.dir = dir;
        this.port = port;
        this.controllerPort = controllerPort;
        this.classPath = classPath;
    }

    /**
     * Creates a data directory and free ports, writes {@code server.properties}, formats the storage, starts the broker
     * and waits until it listens.
     */
    public static KafkaBroker start() throws IOException, InterruptedException {
        String classPath = classPath();
        if (classPath.isEmpty()) {
            throw new IllegalStateException(MAIN_CLASS + " (org.apache.kafka:kafka_2.13) is not on the class path");
        }
        Path dir = Files.createTempDirectory("flashstock-kafka-");
        int port = freePort(-1);
        KafkaBroker broker = new KafkaBroker(dir, port, freePort(port), classPath);
        broker.writeProperties();
        broker.format();
        broker.launch();
        return broker;
    }

    /** {@code 127.0.0.1:<port>}: the value of {@code kafka.bootstrap.servers}. */
    public String bootstrapServers() {
        return LOOPBACK + ":" + port;
    }

    public Path directory() {
        return dir;
    }

    /** The running broker process (for signals), or null when stopped. */
    public Process process() {
        return process;
    }

    /** Starts the broker (again, with the data it had) on its ports and waits until it listens. */
    public synchronized void launch() throws IOException, InterruptedException {
        if (process != null && process.isAlive()) {
            return;
        }
        process = java(MAIN_CLASS, dir.resolve("server.properties").toString())
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("kafka.log").toFile()))
                .start();
        long deadline = System.currentTimeMillis() + START_TIMEOUT_MS;
        while (!LocalServers.answers(LOOPBACK, port)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the Kafka broker exited with " + process.exitValue() + " (log: "
                        + dir.resolve("kafka.log") + ")");
            }
            if (System.currentTimeMillis() > deadline) {
                stop(true);
                throw new IllegalStateException("the Kafka broker did not listen on " + bootstrapServers() + " within "
                        + START_TIMEOUT_MS / 1000 + " s (log: " + dir.resolve("kafka.log") + ")");
            }
            Thread.sleep(100);
        }
    }

    /**
     * Stops the broker by its pid: SIGTERM and a wait for its orderly shutdown, or SIGKILL when {@code kill} (a crash)
     * or when the orderly shutdown takes over 15 s. The data directory stays ({@link #launch()} again, or
     * {@link #delete()}).
     */
    public synchronized void stop(boolean kill) throws InterruptedException {
        Process p = process;
        process = null;
        if (p == null) {
            return;
        }
        if (kill) {
            p.destroyForcibly();
        } else {
            p.destroy();
            if (!p.waitFor(15, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
        p.waitFor(15, TimeUnit.SECONDS);
    }

    /** Stops the broker and removes its data directory. */
    public void delete() throws InterruptedException, IOException {
        stop(false);
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        }
    }

    private void writeProperties() throws IOException {
        String properties = String.join("\n",
                "process.roles=broker,controller",
                "node.id=1",
                "controller.quorum.voters=1@" + LOOPBACK + ":" + controllerPort,
                "listeners=PLAINTEXT://" + LOOPBACK + ":" + port + ",CONTROLLER://" + LOOPBACK + ":" + controllerPort,
                "advertised.listeners=PLAINTEXT://" + LOOPBACK + ":" + port,
                "controller.listener.names=CONTROLLER",
                "inter.broker.listener.name=PLAINTEXT",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "log.dirs=" + dir.resolve("data"),
                // One node: every internal topic with one replica, or the idempotent producer and consumer groups
                // wait for replicas that never come.
                "offsets.topic.replication.factor=1",
                "offsets.topic.num.partitions=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "share.coordinator.state.topic.replication.factor=1",
                "share.coordinator.state.topic.min.isr=1",
                "group.initial.rebalance.delay.ms=0",
                // The events topic appears on first use, as production's does not (docs/operations.md, "Events").
                "auto.create.topics.enable=true",
                "num.partitions=3",
                // A throwaway broker on a shared machine: few threads.
                "num.network.threads=2",
                "num.io.threads=2",
                "background.threads=2",
                "");
        Files.writeString(dir.resolve("server.properties"), properties, StandardCharsets.UTF_8);
    }

    private void format() throws IOException, InterruptedException {
        String clusterId = Base64.getUrlEncoder().withoutPadding().encodeToString(uuidBytes());
        // "--cluster-id=<id>", not "-t <id>": a URL-safe Base64 id starts with '-' one time in 64, and the tool's argument
        // parser then reads it as an option ("argument --cluster-id/-t: expected one argument")
        Process tool = java(STORAGE_TOOL, "format", "--cluster-id=" + clusterId, "-c", dir.resolve("server.properties").toString())
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("format.log").toFile()))
                .start();
        if (!tool.waitFor(60, TimeUnit.SECONDS)) {
            tool.destroyForcibly();
            throw new IllegalStateException("formatting the Kafka storage took over 60 s (" + dir + ")");
        }
        if (tool.exitValue() != 0) {
            throw new IllegalStateException("formatting the Kafka storage failed with " + tool.exitValue() + ": "
                    + Files.readString(dir.resolve("format.log"), StandardCharsets.UTF_8));
        }
    }

    private ProcessBuilder java(String mainClass, String... args) {
        List<String> command = new ArrayList<>(List.of(Paths.get(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xms64m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Djava.awt.headless=true", "-cp", classPath, mainClass));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).directory(dir.toFile());
    }

    private static byte[] uuidBytes() {
        UUID uuid = UUID.randomUUID();
        java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate(16);
        bytes.putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
        return bytes.array();
    }

    /**
     * The jars of kafka_2.13 and its dependencies among this JVM's: those of {@code java.class.path} (and of the
     * {@code Class-Path} of a manifest-only jar there, as surefire uses) and those this class's loader sees (Quarkus
     * dev mode and {@code @QuarkusTest} load the application's dependencies in class loaders of their own). Empty
     * when the broker's jar is not among them.
     */
    static String classPath() {
        Set<Path> jars = new LinkedHashSet<>();
        for (String entry : System.getProperty("java.class.path", "").split(File.pathSeparator)) {
            if (!entry.isBlank()) {
                addWithManifestClassPath(Path.of(entry), jars);
            }
        }
        try {
            Enumeration<URL> manifests = KafkaBroker.class.getClassLoader().getResources(JarFile.MANIFEST_NAME);
            while (manifests.hasMoreElements()) {
                Path jar = jarOf(manifests.nextElement());
                if (jar != null) {
                    jars.add(jar);
                }
            }
        } catch (IOException e) {
            // java.class.path alone, then
        }
        List<String> selected = new ArrayList<>();
        boolean broker = false;
        for (Path jar : jars) {
            String name = jar.getFileName().toString();
            if (name.endsWith(".jar") && JAR_PREFIXES.stream().anyMatch(name::startsWith)) {
                selected.add(jar.toString());
                broker |= name.startsWith("kafka_2.13-");
            }
        }
        return broker ? String.join(File.pathSeparator, selected) : "";
    }

    private static void addWithManifestClassPath(Path entry, Set<Path> jars) {
        if (!jars.add(entry.toAbsolutePath()) || !entry.toString().endsWith(".jar") || !Files.isRegularFile(entry)) {
            return;
        }
        try (JarFile jar = new JarFile(entry.toFile())) {
            String classPath = jar.getManifest() == null ? null
                    : jar.getManifest().getMainAttributes().getValue("Class-Path");
            if (classPath == null) {
                return;
            }
            for (String item : classPath.trim().split("\\s+")) {
                try {
                    URL url = entry.toUri().toURL().toURI().resolve(item).toURL();
                    if ("file".equals(url.getProtocol())) {
                        jars.add(Paths.get(url.toURI()));
                    }
                } catch (MalformedURLException | URISyntaxException | IllegalArgumentException e) {
                    // not a local file
                }
            }
        } catch (IOException e) {
            // not a readable jar
        }
    }

    /** The local jar of a {@code jar:file:/...!/META-INF/MANIFEST.MF} URL, else null. */
    private static Path jarOf(URL manifest) {
        String url = manifest.toString();
        int bang = url.indexOf("!/");
        if (!url.startsWith("jar:file:") || bang < 0) {
            return null;
        }
        try {
            return Paths.get(new java.net.URI(url.substring("jar:".length(), bang)));
        } catch (URISyntaxException | IllegalArgumentException e) {
            return null;
        }
    }

    private static int freePort(int not) throws IOException {
        for (int attempt = 0; attempt < 20; attempt++) {
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
                socket.setReuseAddress(true);
                if (socket.getLocalPort() != not) {
                    return socket.getLocalPort();
                }
            }
        }
        throw new IOException("no second free loopback port");
    }
}
