package io.flashstock.redis;

import static io.flashstock.testsupport.Api.given;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;

import io.flashstock.testsupport.Pause;
import io.quarkus.redis.datasource.RedisDataSource;

/** A lease of another pod, written into the test's Redis as that pod would hold it. */
record OtherLease(RedisDataSource redis, String field) {

    /** {@code settings} with a 3 s lease, so that the tests see leases run out. */
    static Map<String, String> withShortLease(Map<String, String> settings) {
        Map<String, String> shortLease = new HashMap<>(settings);
        shortLease.put("flashstock.strategy-lease.ttl", "3s");
        return shortLease;
    }

    static OtherLease of(RedisDataSource redis, String family, String strategy) {
        return new OtherLease(redis, family + "|" + strategy + "|other-pod");
    }

    /** Held for another minute (Redis's clock, as the script reads it). */
    OtherLease hold() {
        return holdFor(60_000);
    }

    /** Held until {@code millis} from now: negative for a lease that ran out without being released. */
    OtherLease holdFor(long millis) {
        long now = redis.execute("TIME").get(0).toLong() * 1000;
        redis.hash(String.class).hset(RedisKeys.strategyLeases(), field, Long.toString(now + millis));
        return this;
    }

    void release() {
        redis.hash(String.class).hdel(RedisKeys.strategyLeases(), field);
    }

    boolean present() {
        return redis.hash(String.class).hexists(RedisKeys.strategyLeases(), field);
    }

    /** Waits until readiness answers {@code status}; returns its body. */
    static String readiness(int status) {
        long deadline = System.currentTimeMillis() + 5_000;
        while (true) {
            var response = given().get("/q/health/ready");
            if (response.statusCode() == status) {
                return response.asString();
            }
            assertTrue(System.currentTimeMillis() < deadline, "readiness " + status + " within 5 s: "
                    + response.asString());
            Pause.sleep(50);
        }
    }
}
