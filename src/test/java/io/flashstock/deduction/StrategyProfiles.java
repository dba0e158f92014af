package io.flashstock.deduction;

import java.util.Map;

import io.quarkus.test.junit.QuarkusTestProfile;

/** One test profile per strategy: the same contract suite runs against each. */
public final class StrategyProfiles {

    private StrategyProfiles() {
    }

    /** Settings every strategy test shares: a fast expiry job so expiry is observable from outside. */
    static Map<String, String> common(String strategy) {
        return Map.of("flashstock.strategy", strategy, "flashstock.expiry.interval", "1s");
    }

    public static class DbOptimistic implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return common("db-optimistic");
        }
    }

    public static class RedisLock implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return common("redis-lock");
        }
    }
}
