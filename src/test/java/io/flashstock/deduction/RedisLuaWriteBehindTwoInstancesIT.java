package io.flashstock.deduction;

import io.flashstock.testsupport.Instances;
import io.flashstock.testsupport.Lane;
import io.flashstock.testsupport.SharedStateCasesOnly;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The contract suite against two packaged instances on one MySQL and one Redis, strategy {@code redis-lua} with {@code write-behind} persistence: every other request goes to
 * the second instance ({@link Instances}), so concurrent buyers, limits, replays, confirms and cancels are split
 * between two pods, and the exact counts must still hold.
 */
@Tag(Lane.FULL_TAG)
@QuarkusIntegrationTest
@ExtendWith(SharedStateCasesOnly.class)
class RedisLuaWriteBehindTwoInstancesIT extends RedisLuaWriteBehindStrategyTest {

    @BeforeAll
    static void startSecondInstance() {
        Instances.startSecond("redis-lua-write-behind-second", new StrategyProfiles.RedisLuaWriteBehind());
    }

    @AfterAll
    static void stopSecondInstance() {
        Instances.stopSecond();
    }
}
