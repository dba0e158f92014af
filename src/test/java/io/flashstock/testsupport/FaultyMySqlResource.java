package io.flashstock.testsupport;

import java.net.URI;
import java.util.Map;

import io.flashstock.devservices.LocalServers;
import org.netcrusher.tcp.TcpCrusher;

/**
 * The tests' MySQL, reached by the service through a {@link FaultProxy} of the test class's own, so a test can cut
 * the service's connections, freeze them or slow them down. The test's own JDBC assertions ({@link Db}) go to MySQL
 * directly.
 */
public class FaultyMySqlResource extends LocalServersResource {

    private static volatile FaultProxy current;
    /** The service has been seen connected through {@link #current}. */
    private static volatile boolean connectedThrough;

    @Override
    public Map<String, String> start() {
        Map<String, String> settings = super.start();
        String jdbcUrl = settings.get(LocalServers.JDBC_URL);
        URI target = URI.create(jdbcUrl.substring("jdbc:".length()));
        int port = target.getPort() < 0 ? 3306 : target.getPort();
        FaultProxy proxy = FaultProxy.to(target.getHost(), port);
        current = proxy;
        connectedThrough = false;
        settings.put(LocalServers.JDBC_URL, jdbcUrl.replace(target.getHost() + ":" + target.getPort(),
                "127.0.0.1:" + proxy.port()));
        return settings;
    }

    @Override
    public void stop() {
        FaultProxy proxy = current;
        current = null;
        if (proxy != null) {
            proxy.close();
        }
    }

    /**
     * Delays every packet between the service and MySQL, both ways, by {@code millis} from now on. With a delay, a
     * cut loses statements that MySQL has run, commits included, whose answers were still on their way: the
     * "commit whose answer is lost" case.
     */
    public static void delay(long millis) {
        active().delay(millis);
    }

    /** The proxy between the service and MySQL. */
    public static TcpCrusher proxy() {
        return active().crusher();
    }

    /**
     * The active proxy, once the service has connected through it: a fault injected into a proxy the service does not
     * use would let the test pass without any fault (a {@code -Dquarkus.datasource.jdbc.url} given to Maven, for one,
     * overrides the proxy's address).
     */
    private static FaultProxy active() {
        FaultProxy proxy = current;
        if (proxy == null) {
            throw new IllegalStateException("no FaultyMySqlResource is active for this test class");
        }
        if (!connectedThrough) {
            if (proxy.crusher().getClientTotalCount() == 0) {
                throw new IllegalStateException("the service never connected to MySQL through the fault proxy: is "
                        + "quarkus.datasource.jdbc.url set from outside the test?");
            }
            connectedThrough = true; // checked once: a cut resets the proxy's count until the pool reconnects
        }
        return proxy;
    }
}
