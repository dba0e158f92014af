package io.flashstock.testsupport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.flashstock.devservices.LocalServers;
import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.core.throttle.Throttler;
import org.netcrusher.tcp.TcpCrusher;
import org.netcrusher.tcp.TcpCrusherBuilder;

/**
 * The tests' MySQL, reached by the service through a NetCrusher TCP proxy of the test's own on a free port, so a
 * test can cut the service's connections (close, reopen) or freeze them without touching the server or anyone
 * else's connections to it. The test's own JDBC assertions ({@link Db}) go to MySQL directly.
 */
public class FaultyMySqlResource extends LocalServersResource {

    private static volatile long delayNanos;
    /** Holds every packet, both ways, for the current delay (0: pass at once). */
    private static final Throttler DELAY = buffer -> delayNanos;

    private static volatile NioReactor reactor;
    private static volatile TcpCrusher crusher;

    @Override
    public Map<String, String> start() {
        Map<String, String> settings = super.start();
        String jdbcUrl = settings.get(LocalServers.JDBC_URL);
        URI target = URI.create(jdbcUrl.substring("jdbc:".length()));
        try {
            int port = freePort();
            reactor = new NioReactor();
            crusher = TcpCrusherBuilder.builder().withReactor(reactor)
                    .withBindAddress("127.0.0.1", port)
                    .withIncomingThrottlerFactory(address -> DELAY)
                    .withOutgoingThrottlerFactory(address -> DELAY)
                    .withConnectAddress(target.getHost(), target.getPort() < 0 ? 3306 : target.getPort())
                    .buildAndOpen();
            settings.put(LocalServers.JDBC_URL, jdbcUrl.replace(target.getHost() + ":" + target.getPort(),
                    "127.0.0.1:" + port));
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the MySQL fault proxy", e);
        }
        return settings;
    }

    @Override
    public void stop() {
        delayNanos = 0;
        if (crusher != null) {
            crusher.close();
            crusher = null;
        }
        if (reactor != null) {
            reactor.close();
            reactor = null;
        }
    }

    /**
     * Delays every packet between the service and MySQL, both ways, by {@code millis} from now on. With a delay, a
     * cut ({@code proxy().closeAllPairs()}) loses statements that MySQL has run, commits included, whose answers
     * were still on their way: the "commit whose answer is lost" case.
     */
    public static void delay(long millis) {
        delayNanos = TimeUnit.MILLISECONDS.toNanos(millis);
    }

    /** The proxy between the service and MySQL. */
    public static TcpCrusher proxy() {
        TcpCrusher current = crusher;
        if (current == null) {
            throw new IllegalStateException("no FaultyMySqlResource is active for this test class");
        }
        return current;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        }
    }
}
