package io.flashstock.deduction;

import io.flashstock.testsupport.OwnRedisClusterResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The contract suite, strategy {@code redis-lua} with {@code write-through} persistence, on a 3-master Redis Cluster of the test's own. */
@QuarkusTest
@TestProfile(StrategyProfiles.RedisLuaWriteThrough.class)
@WithTestResource(OwnRedisClusterResource.class)
class RedisLuaWriteThroughClusterTest extends StrategyContract {
}
