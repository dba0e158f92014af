package io.flashstock.testsupport;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.core.throttle.Throttler;
import org.netcrusher.tcp.TcpCrusher;
import org.netcrusher.tcp.TcpCrusherBuilder;

/**
 * A NetCrusher TCP proxy on a free loopback port in front of one server, for the service under test to connect
 * through: a test cuts its connections ({@link #crusher()}{@code .close()/.open()}), freezes them ({@code freeze()}:
 * connections stay open, nothing moves) or delays every packet ({@link #delay}), without touching the server or
 * anybody else's connections to it.
 */
public final class FaultProxy implements AutoCloseable {

    private final NioReactor reactor;
    private final TcpCrusher crusher;
    private volatile long delayNanos;

    private FaultProxy(String host, int port) throws IOException {
        Throttler delay = buffer -> delayNanos;
        reactor = new NioReactor();
        crusher = TcpCrusherBuilder.builder().withReactor(reactor)
                .withBindAddress("127.0.0.1", Ports.free())
                .withIncomingThrottlerFactory(address -> delay)
                .withOutgoingThrottlerFactory(address -> delay)
                .withConnectAddress(host, port)
                .buildAndOpen();
    }

    /** Opens a proxy to {@code host:port}. */
    public static FaultProxy to(String host, int port) {
        try {
            return new FaultProxy(host, port);
        } catch (IOException e) {
            throw new IllegalStateException("cannot open a fault proxy to " + host + ":" + port, e);
        }
    }

    /** The port the service connects to instead of the server's. */
    public int port() {
        return crusher.getBindAddress().getPort();
    }

    /**
     * Delays every packet, both ways, by {@code millis} from now on (0: pass at once). With a delay, a cut loses
     * commands the server has run whose answers were still on their way.
     */
    public void delay(long millis) {
        delayNanos = TimeUnit.MILLISECONDS.toNanos(millis);
    }

    public TcpCrusher crusher() {
        return crusher;
    }

    @Override
    public void close() {
        delayNanos = 0;
        crusher.close();
        reactor.close();
    }

}
