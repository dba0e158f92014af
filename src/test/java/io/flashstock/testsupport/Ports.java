package io.flashstock.testsupport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Free loopback ports for the servers and proxies tests start themselves. */
public final class Ports {

    /**
     * Every port handed out in this JVM. The kernel may give the same ephemeral port to two probes in a row, as the
     * first is closed before its server binds it: a service once got the same port for HTTP and management, and
     * never answered its readiness probe.
     */
    private static final Set<Integer> GIVEN = ConcurrentHashMap.newKeySet();

    private Ports() {
    }

    /** A loopback port nothing listens on right now, and not handed out before by this JVM. */
    public static int free() {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = probe();
            if (GIVEN.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no loopback port that was not handed out before");
    }

    private static int probe() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free loopback port", e);
        }
    }
}
