package io.flashstock.deduction;

import io.flashstock.testsupport.OwnRedisClusterResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The contract suite, strategy {@code redis-lua} with {@code write-behind} persistence, on a 3-master Redis Cluster of the test's own. */
@QuarkusTest
@TestProfile(StrategyProfiles.RedisLuaWriteBehind.class)
@WithTestResource(OwnRedisClusterResource.class)
class RedisLuaWriteBehindClusterTest extends StrategyContract {
}
