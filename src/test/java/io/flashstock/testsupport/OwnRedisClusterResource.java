package io.flashstock.testsupport;

import java.util.Map;

import io.flashstock.devservices.LocalServers;

/**
 * The shared MySQL of {@link LocalServersResource}, and a 3-master Redis Cluster of the test class's own
 * ({@link OwnRedisCluster}), which the service reaches with {@code quarkus.redis.client-type=cluster}. The test
 * reaches the cluster through {@link #cluster()}.
 */
public class OwnRedisClusterResource extends LocalServersResource {

    private static volatile OwnRedisCluster current;

    @Override
    public Map<String, String> start() {
        OwnRedisCluster cluster = OwnRedisCluster.start(3);
        current = cluster;
        Map<String, String> settings = super.start();
        settings.putAll(redisSettings(cluster));
        return settings;
    }

    @Override
    public void stop() {
        OwnRedisCluster cluster = current;
        current = null;
        if (cluster != null) {
            cluster.close();
        }
    }

    /** What points a service at {@code cluster}: its masters as seeds, and the cluster client. */
    public static Map<String, String> redisSettings(OwnRedisCluster cluster) {
        return Map.of(LocalServers.REDIS_HOSTS, cluster.hosts(), "quarkus.redis.client-type", "cluster");
    }

    /** The cluster the running test class's application uses. */
    public static OwnRedisCluster cluster() {
        OwnRedisCluster cluster = current;
        if (cluster == null) {
            throw new IllegalStateException("no OwnRedisClusterResource is active for this test class");
        }
        return cluster;
    }
}
