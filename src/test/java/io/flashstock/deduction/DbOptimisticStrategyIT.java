package io.flashstock.deduction;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The contract suite against the packaged jar, strategy {@code db-optimistic}. */
@QuarkusIntegrationTest
class DbOptimisticStrategyIT extends DbOptimisticStrategyTest {
}
