package io.flashstock.web;

import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import org.jboss.logging.Logger;

/**
 * Says at start which network transport Vert.x runs on. {@code quarkus.vertx.prefer-native-transport} asks for
 * Netty's epoll transport (the HTTP server and the Redis client alike); when its native library cannot load (another
 * OS or CPU, a {@code noexec} temporary directory it unpacks to) Vert.x quietly falls back to NIO, which works but
 * costs more CPU per request, so an operator sees that here as a warning with its cause.
 */
@Singleton
class NetworkTransport {

    private static final Logger LOG = Logger.getLogger(NetworkTransport.class);

    void report(@Observes StartupEvent start, Vertx vertx) {
        if (vertx.isNativeTransportEnabled()) {
            LOG.info("network transport: native (epoll)");
            return;
        }
        Throwable cause = vertx.unavailableNativeTransportCause();
        LOG.warnf("network transport: NIO, the native transport is unavailable (%s)",
                cause == null ? "not requested" : cause.toString());
    }
}
