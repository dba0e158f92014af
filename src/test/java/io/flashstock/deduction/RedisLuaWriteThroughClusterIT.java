package io.flashstock.deduction;

import io.flashstock.testsupport.Instances;
import io.flashstock.testsupport.Lane;
import io.flashstock.testsupport.OwnRedisClusterResource;
import io.quarkus.test.common.WithTestResource;
import io.flashstock.testsupport.SharedStateCasesOnly;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The contract suite, strategy {@code redis-lua} with {@code write-through} persistence, against two packaged instances on one MySQL and a 3-master Redis Cluster of the test's
 * own ({@code quarkus.redis.client-type=cluster}): every other request goes to the second instance.
 */
@Tag(Lane.FULL_TAG)
@QuarkusIntegrationTest
@ExtendWith(SharedStateCasesOnly.class)
@TestProfile(StrategyProfiles.RedisLuaWriteThrough.class)
@WithTestResource(OwnRedisClusterResource.class)
class RedisLuaWriteThroughClusterIT extends StrategyContract {

    @BeforeAll
    static void startSecondInstance() {
        Instances.startSecond("redis-lua-write-through-cluster-second", new StrategyProfiles.RedisLuaWriteThrough(),
                OwnRedisClusterResource.redisSettings(OwnRedisClusterResource.cluster()));
    }

    @AfterAll
    static void stopSecondInstance() {
        Instances.stopSecond();
    }
}
