package io.flashstock.faults;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.FaultyRedisResource;
import io.flashstock.testsupport.Lane;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Tag;

/** {@link RedisFaults} under {@code db-optimistic}. */
@Tag(Lane.FULL_TAG)
@QuarkusTest
@TestProfile(StrategyProfiles.DbOptimistic.class)
@WithTestResource(FaultyRedisResource.class)
class DbOptimisticRedisFaultsTest extends RedisFaults {
}
