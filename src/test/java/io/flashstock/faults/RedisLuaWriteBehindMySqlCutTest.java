package io.flashstock.faults;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.FaultyMySqlResource;
import io.flashstock.testsupport.Lane;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Tag;

/**
 * {@link MySqlCut} under {@code redis-lua} with write-behind persistence: purchases do not wait for MySQL, so the
 * cut hits the relay's commits (an answer lost after the relay's batch committed) and confirm, cancel and restock.
 */
@Tag(Lane.FULL_TAG)
@QuarkusTest
@TestProfile(StrategyProfiles.RedisLuaWriteBehind.class)
@WithTestResource(FaultyMySqlResource.class)
class RedisLuaWriteBehindMySqlCutTest extends MySqlCut {

    @Override
    boolean keepsHotStock() {
        return true;
    }
}
