package io.flashstock.faults;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.FaultyMySqlResource;
import io.flashstock.testsupport.Lane;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Tag;

/** {@link MySqlHung} under {@code redis-lua} with write-behind persistence. */
@Tag(Lane.FULL_TAG)
@QuarkusTest
@TestProfile(StrategyProfiles.RedisLuaWriteBehind.class)
@WithTestResource(FaultyMySqlResource.class)
class RedisLuaWriteBehindMySqlHungTest extends MySqlHung {

    @Override
    boolean readinessFollowsMySql() {
        return false;
    }

    @Override
    boolean keepsHotStock() {
        return true;
    }
}
