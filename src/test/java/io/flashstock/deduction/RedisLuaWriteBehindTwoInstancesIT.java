package io.flashstock.deduction;

import io.flashstock.testsupport.Instances;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The contract suite against two packaged instances on one MySQL and one Redis, strategy {@code redis-lua} with {@code write-behind} persistence: every other request goes to
 * the second instance ({@link Instances}), so concurrent buyers, limits, replays, confirms and cancels are split
 * between two pods, and the exact counts must still hold.
 */
@QuarkusIntegrationTest
class RedisLuaWriteBehindTwoInstancesIT extends RedisLuaWriteBehindStrategyIT {

    @BeforeAll
    static void startSecondInstance() {
        Instances.startSecond("redis-lua-write-behind-second", new StrategyProfiles.RedisLuaWriteBehind());
    }

    @AfterAll
    static void stopSecondInstance() {
        Instances.stopSecond();
    }
}
