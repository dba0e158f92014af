package io.flashstock.testsupport;

import java.util.Map;

import io.flashstock.devservices.LocalKafka;
import io.flashstock.devservices.LocalServers;

/**
 * For tests that cut MySQL under the event publisher: the service reaches MySQL through a fault proxy of the class's
 * own ({@link FaultyMySqlResource}), in a database of its own ({@value #DATABASE}, not the suite's shared one; emptied at the start), with a
 * Kafka broker ({@link OwnKafka}, which the test may freeze) and a Redis of its own. The test's own JDBC goes to that
 * database directly ({@link #jdbcUrl()}).
 */
public class FaultyMySqlKafkaResource extends FaultyMySqlResource {

    public static final String DATABASE = "flashstock_test_evf";

    private static volatile OwnKafka kafka;
    private static volatile OwnRedis redis;

    @Override
    public Map<String, String> start() {
        kafka = OwnKafka.start();
        redis = OwnRedis.start();
        Map<String, String> settings = super.start();
        settings.put(LocalServers.JDBC_URL, Db.freshDatabase(settings.get(LocalServers.JDBC_URL), DATABASE));
        settings.put(LocalServers.REDIS_HOSTS, redis.hosts());
        settings.put(LocalKafka.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
        return settings;
    }

    @Override
    public void stop() {
        super.stop();
        if (kafka != null) {
            kafka.close();
        }
        if (redis != null) {
            redis.close();
        }
        kafka = null;
        redis = null;
    }

    /** The broker the running test class's application publishes to. */
    public static OwnKafka kafka() {
        OwnKafka broker = kafka;
        if (broker == null) {
            throw new IllegalStateException("no FaultyMySqlKafkaResource is active for this test class");
        }
        return broker;
    }

    /** The class's database, directly (not through the proxy): for the test's own reads. */
    public static String jdbcUrl() {
        return Db.database(DATABASE);
    }
}
