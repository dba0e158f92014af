package io.flashstock.deduction;

import io.flashstock.testsupport.LocalServersResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The contract suite, strategy {@code redis-lua} with {@code write-through} persistence. */
@QuarkusTest
@TestProfile(StrategyProfiles.RedisLuaWriteThrough.class)
@WithTestResource(LocalServersResource.class)
class RedisLuaWriteThroughStrategyTest extends StrategyContract {
}
