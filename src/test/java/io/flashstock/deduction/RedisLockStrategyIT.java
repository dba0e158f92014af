package io.flashstock.deduction;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The contract suite against the packaged jar, strategy {@code redis-lock}. */
@QuarkusIntegrationTest
class RedisLockStrategyIT extends RedisLockStrategyTest {
}
