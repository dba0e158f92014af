package io.flashstock.deduction;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The contract suite against the packaged jar, strategy {@code redis-lua} with {@code write-through} persistence. */
@QuarkusIntegrationTest
class RedisLuaWriteThroughStrategyIT extends RedisLuaWriteThroughStrategyTest {
}
