package io.flashstock.deduction;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The contract suite against the packaged jar, strategy {@code redis-lua} with {@code write-behind} persistence. */
@QuarkusIntegrationTest
class RedisLuaWriteBehindStrategyIT extends RedisLuaWriteBehindStrategyTest {
}
