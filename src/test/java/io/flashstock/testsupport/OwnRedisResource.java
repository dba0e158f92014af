package io.flashstock.testsupport;

import java.util.Map;

import io.flashstock.devservices.LocalServers;

/**
 * The shared MySQL of {@link LocalServersResource}, but a Redis of the test class's own ({@link OwnRedis}): for tests
 * that flush, kill or restart Redis. The test reaches the server through {@link #server()}.
 */
public class OwnRedisResource extends LocalServersResource {

    private static volatile OwnRedis current;

    @Override
    public Map<String, String> start() {
        OwnRedis redis = OwnRedis.start();
        current = redis;
        Map<String, String> settings = super.start();
        settings.put(LocalServers.REDIS_HOSTS, redis.hosts());
        return settings;
    }

    @Override
    public void stop() {
        OwnRedis redis = current;
        current = null;
        if (redis != null) {
            redis.close();
        }
    }

    /** The Redis server the running test class's application uses. */
    public static OwnRedis server() {
        OwnRedis redis = current;
        if (redis == null) {
            throw new IllegalStateException("no OwnRedisResource is active for this test class");
        }
        return redis;
    }
}
