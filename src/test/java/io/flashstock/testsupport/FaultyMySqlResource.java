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

    @Override
    public Map<String, String> start() {
        Map<String, String> settings = super.start();
        String jdbcUrl = settings.get(LocalServers.JDBC_URL);
        URI target = URI.create(jdbcUrl.substring("jdbc:".length()));
        int port = target.getPort() < 0 ? 3306 : target.getPort();
        FaultProxy proxy = FaultProxy.to(target.getHost(), port);
        current = proxy;
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

    private static FaultProxy active() {
        FaultProxy proxy = current;
        if (proxy == null) {
            throw new IllegalStateException("no FaultyMySqlResource is active for this test class");
        }
        return proxy;
    }
}
