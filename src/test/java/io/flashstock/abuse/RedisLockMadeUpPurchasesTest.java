package io.flashstock.abuse;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.LocalServersResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * redis-lock: made-up-sku purchases and carts, each with a random Idempotency-Key of its own, leave no batching lane,
 * no cart gate, no Redis key and nothing else in the heap ({@link MadeUpPurchasesContract}). In the Quarkus start of
 * {@code RedisLockStrategyTest}.
 */
@QuarkusTest
@TestProfile(StrategyProfiles.RedisLock.class)
@WithTestResource(LocalServersResource.class)
class RedisLockMadeUpPurchasesTest extends MadeUpPurchasesContract {

    @Override
    protected boolean idempotencyKeys() {
        return true;
    }

    @Override
    protected String strategy() {
        return "redis-lock";
    }
}
