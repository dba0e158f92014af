package io.flashstock.testsupport;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import io.flashstock.devservices.LocalServers;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * The MySQL and Redis the tests run against: the ones configured through system properties or environment variables
 * ({@code quarkus.datasource.jdbc.url} / {@code QUARKUS_DATASOURCE_JDBC_URL}, {@code quarkus.datasource.username},
 * {@code quarkus.datasource.password}, {@code quarkus.redis.hosts} / {@code QUARKUS_REDIS_HOSTS}), by default
 * {@value #TEST_JDBC_URL} as root without password and {@value #TEST_REDIS_HOSTS};
 * where nothing answers there, embedded ones started once per JVM by {@link LocalServers}
 * ({@code flashstock.local-servers.enabled=false} / {@code FLASHSTOCK_LOCAL_SERVERS_ENABLED=false} turns that off).
 * <p>
 * For {@code @QuarkusTest} and {@code @QuarkusIntegrationTest} alike ({@code @WithTestResource}): {@link #start()}
 * returns all four settings, which the latter passes to the packaged application. The static getters give test code
 * in the same JVM the same values for its own JDBC and Redis connections, also before {@link #start()} ran.
 */
public class LocalServersResource implements QuarkusTestResourceLifecycleManager {

    /**
     * The tests' own database on the shared MariaDB (created on first use): the suite may clean it, and nobody else
     * uses it. The shared {@code test} database is never touched. A parallel run's other forks use
     * {@code flashstock_test_f<fork>} ({@link #testJdbcUrl()}).
     */
    public static final String TEST_JDBC_URL = "jdbc:mysql://127.0.0.1:3306/flashstock_test?createDatabaseIfNotExist=true";
    /**
     * The tests' own logical database on the shared Redis. Nothing ever flushes it; tests that flush, kill or restart
     * Redis run against a server of their own ({@link OwnRedisResource}). A parallel run's second fork uses index 12
     * ({@link #testRedisHosts()}).
     */
    public static final String TEST_REDIS_HOSTS = "redis://127.0.0.1:6379/13";
    /**
     * Surefire's or failsafe's fork number ({@code ${surefire.forkNumber}}, pom.xml's argLines), 1 outside Maven. The
     * forks run test classes side by side; each needs a database and a Redis index of its own, as the classes expect
     * to be the only writers of theirs.
     */
    static final String FORK = "test.fork";
    /**
     * The shared Redis indexes the forks use, by fork number. Fork 1 keeps 13; the others avoid the indexes single
     * classes take for themselves (7, 11; docs/testing.md).
     */
    private static final int[] FORK_REDIS_INDEXES = {13, 12};

    private static volatile Map<String, String> resolved;

    /** {@value #TEST_JDBC_URL}, or in fork {@code n > 1} of a parallel run the same with {@code flashstock_test_f<n>}. */
    static String testJdbcUrl() {
        int fork = fork();
        return fork == 1 ? TEST_JDBC_URL : TEST_JDBC_URL.replace("/flashstock_test?", "/flashstock_test_f" + fork + "?");
    }

    /** {@value #TEST_REDIS_HOSTS}, or in a parallel run's other forks the index {@link #FORK_REDIS_INDEXES} gives. */
    static String testRedisHosts() {
        int fork = fork();
        return fork == 1 ? TEST_REDIS_HOSTS : "redis://127.0.0.1:6379/" + FORK_REDIS_INDEXES[fork - 1];
    }

    private static int fork() {
        String value = System.getProperty(FORK, "1").trim();
        int fork = value.isEmpty() ? 1 : Integer.parseInt(value);
        if (fork < 1 || fork > FORK_REDIS_INDEXES.length) {
            throw new IllegalStateException("Fork " + fork + " of a parallel test run has no Redis index of its own:"
                    + " run at most " + FORK_REDIS_INDEXES.length + " forks (-Dtest.forks)");
        }
        return fork;
    }

    @Override
    public Map<String, String> start() {
        return new LinkedHashMap<>(resolve());
    }

    @Override
    public void stop() {
        // Embedded servers serve every test class of this JVM; they stop when the JVM exits.
    }

    /** JDBC URL of the MySQL/MariaDB under test. */
    public static String jdbcUrl() {
        return resolve().get(LocalServers.JDBC_URL);
    }

    public static String username() {
        return resolve().get(LocalServers.USERNAME);
    }

    public static String password() {
        return resolve().get(LocalServers.PASSWORD);
    }

    /** {@code redis://host:port[/db]} of the Redis under test. */
    public static String redisHosts() {
        return resolve().get(LocalServers.REDIS_HOSTS);
    }

    /** Resolved once per class loader; {@link LocalServers} makes the embedded servers themselves JVM-wide. */
    static Map<String, String> resolve() {
        Map<String, String> result = resolved;
        if (result == null) {
            synchronized (LocalServersResource.class) {
                result = resolved;
                if (result == null) {
                    result = Map.copyOf(doResolve());
                    resolved = result;
                }
            }
        }
        return result;
    }

    private static Map<String, String> doResolve() {
        String jdbcUrl = setting(LocalServers.JDBC_URL, testJdbcUrl());
        String redisHosts = setting(LocalServers.REDIS_HOSTS, testRedisHosts());
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(LocalServers.JDBC_URL, jdbcUrl);
        settings.put(LocalServers.USERNAME, setting(LocalServers.USERNAME, "root"));
        settings.put(LocalServers.PASSWORD, setting(LocalServers.PASSWORD, ""));
        settings.put(LocalServers.REDIS_HOSTS, redisHosts);
        if (!"false".equalsIgnoreCase(setting("flashstock.local-servers.enabled", "true").trim())) {
            settings.putAll(LocalServers.ensure(jdbcUrl, redisHosts));
        }
        return settings;
    }

    /** System property, else environment variable (MicroProfile Config naming), else the default. */
    private static String setting(String name, String defaultValue) {
        String value = System.getProperty(name);
        if (value == null) {
            value = System.getenv(name.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(Locale.ROOT));
        }
        return value == null ? defaultValue : value;
    }
}
