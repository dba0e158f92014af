package io.flashstock.testsupport;

import java.util.Map;

import io.flashstock.devservices.LocalServers;

/**
 * A Redis of the test class's own ({@link OwnRedisResource}: it may be flushed, killed and restarted), reached by the
 * service through a {@link FaultProxy}, so a test can also cut, freeze or slow down the service's connections to
 * it. The service's Redis timeout is {@value #REDIS_TIMEOUT}, so that a delay of a few hundred milliseconds each
 * way makes calls time out while Redis itself runs them. The test reaches the server through
 * {@link OwnRedisResource#server()} and the proxy through {@link #proxy()}.
 */
public class FaultyRedisResource extends OwnRedisResource {

    public static final String REDIS_TIMEOUT = "500ms";

    private static volatile FaultProxy current;

    @Override
    public Map<String, String> start() {
        Map<String, String> settings = super.start();
        FaultProxy proxy = FaultProxy.to("127.0.0.1", server().port());
        current = proxy;
        settings.put(LocalServers.REDIS_HOSTS, "redis://127.0.0.1:" + proxy.port());
        settings.put("quarkus.redis.timeout", REDIS_TIMEOUT);
        return settings;
    }

    @Override
    public void stop() {
        FaultProxy proxy = current;
        current = null;
        if (proxy != null) {
            proxy.close();
        }
        super.stop();
    }

    /** The proxy between the service and its Redis. */
    public static FaultProxy proxy() {
        FaultProxy proxy = current;
        if (proxy == null) {
            throw new IllegalStateException("no FaultyRedisResource is active for this test class");
        }
        return proxy;
    }
}
