package io.flashstock.deduction;

import io.flashstock.testsupport.LocalServersResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

@QuarkusTest
@TestProfile(StrategyProfiles.RedisLock.class)
@WithTestResource(LocalServersResource.class)
class RedisLockStrategyTest extends StrategyContract {
}
