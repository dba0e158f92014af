package io.flashstock.faults;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.FaultyMySqlResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** {@link MySqlHung} under {@code db-optimistic}. */
@QuarkusTest
@TestProfile(StrategyProfiles.DbOptimisticMySqlFaults.class)
@WithTestResource(FaultyMySqlResource.class)
class DbOptimisticMySqlHungTest extends MySqlHung {
}
