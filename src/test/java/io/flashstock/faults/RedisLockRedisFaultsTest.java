package io.flashstock.faults;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.FaultyRedisResource;
import io.flashstock.testsupport.Lane;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Tag;

/** {@link RedisFaults} under {@code redis-lock}. */
@Tag(Lane.FULL_TAG)
@QuarkusTest
@TestProfile(StrategyProfiles.RedisLock.class)
@WithTestResource(FaultyRedisResource.class)
class RedisLockRedisFaultsTest extends RedisFaults {
}
