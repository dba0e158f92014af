package io.flashstock.testsupport;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.flashstock.devservices.LocalServers;

/**
 * The shared MySQL of {@link LocalServersResource}, and a 3-master Redis Cluster of the test class's own
 * ({@link OwnRedisCluster}), which the service reaches with {@code quarkus.redis.client-type=cluster}. The test
 * reaches the cluster through {@link #cluster()}.
 */
public class OwnRedisClusterResource extends LocalServersResource {

    private static final String CLIENT_TYPE = "quarkus.redis.client-type";

    private static volatile OwnRedisCluster current;
    /** The test JVM's own values of the settings this resource gives, from before it started (null: unset). */
    private final Map<String, String> before = new HashMap<>();

    @Override
    public Map<String, String> start() {
        // @QuarkusIntegrationTest copies a resource's settings into the test JVM's system properties and does not
        // take them back before the next test class resolves its servers from them (LocalServersResource): the next
        // class's packaged service would be pointed at this cluster, stopped by then.
        for (String key : List.of(LocalServers.REDIS_HOSTS, CLIENT_TYPE)) {
            before.put(key, System.getProperty(key));
        }
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
        before.forEach((key, value) -> {
            if (value == null) {
                System.clearProperty(key);
            } else {
                System.setProperty(key, value);
            }
        });
        before.clear();
    }

    /** What points a service at {@code cluster}: its masters as seeds, and the cluster client. */
    public static Map<String, String> redisSettings(OwnRedisCluster cluster) {
        return Map.of(LocalServers.REDIS_HOSTS, cluster.hosts(), CLIENT_TYPE, "cluster");
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
