package io.flashstock.faults;

import java.util.HashMap;
import java.util.Map;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.FaultyRedisResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * {@link RedisFaults} under {@code redis-lua} with write-behind persistence, with {@code flashstock.lua.max-pending}
 * below the sale's size, so that the bound on what Redis data loss can take is tested.
 */
@QuarkusTest
@TestProfile(RedisLuaWriteBehindRedisFaultsTest.BoundedPending.class)
@WithTestResource(FaultyRedisResource.class)
class RedisLuaWriteBehindRedisFaultsTest extends RedisFaults {

    /** Write-behind with at most {@value RedisFaults#MAX_PENDING} pending orders per item. */
    public static class BoundedPending extends StrategyProfiles.RedisLuaWriteBehind {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> settings = new HashMap<>(super.getConfigOverrides());
            settings.put("flashstock.lua.max-pending", Integer.toString(MAX_PENDING));
            return settings;
        }
    }

    @Override
    boolean keepsHotStock() {
        return true;
    }

    @Override
    boolean losesPendingOrdersWithRedisData() {
        return true;
    }
}
