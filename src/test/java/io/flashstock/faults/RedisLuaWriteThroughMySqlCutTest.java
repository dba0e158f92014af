package io.flashstock.faults;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.FaultyMySqlResource;
import io.flashstock.testsupport.Lane;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Tag;

/** {@link MySqlCut} under {@code redis-lua} with write-through persistence. */
@Tag(Lane.FULL_TAG)
@QuarkusTest
@TestProfile(StrategyProfiles.RedisLuaWriteThrough.class)
@WithTestResource(FaultyMySqlResource.class)
class RedisLuaWriteThroughMySqlCutTest extends MySqlCut {

    @Override
    boolean keepsHotStock() {
        return true;
    }
}
