package io.flashstock.faults;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.FaultyRedisResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** {@link RedisFaults} under {@code redis-lock}. */
@QuarkusTest
@TestProfile(StrategyProfiles.RedisLock.class)
@WithTestResource(FaultyRedisResource.class)
class RedisLockRedisFaultsTest extends RedisFaults {
}
