package io.flashstock.abuse;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.LocalServersResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * db-optimistic: made-up-sku purchases without keys leave no batching lane and nothing else in the heap
 * ({@link MadeUpPurchasesContract}). In the Quarkus start of {@code DbOptimisticStrategyTest}.
 */
@QuarkusTest
@TestProfile(StrategyProfiles.DbOptimistic.class)
@WithTestResource(LocalServersResource.class)
class DbOptimisticMadeUpPurchasesTest extends MadeUpPurchasesContract {

    @Override
    protected boolean idempotencyKeys() {
        return false;
    }

    @Override
    protected String strategy() {
        return "db-optimistic";
    }
}
