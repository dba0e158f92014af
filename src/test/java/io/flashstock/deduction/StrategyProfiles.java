package io.flashstock.deduction;

import java.util.Map;

import io.flashstock.testsupport.Lane;
import io.flashstock.testsupport.Tokens;
import io.quarkus.test.junit.QuarkusTestProfile;

/** One test profile per strategy: the same contract suite runs against each. */
public final class StrategyProfiles {

    private StrategyProfiles() {
    }

    /**
     * Settings every strategy test shares: a fast expiry job so expiry is observable from outside, and the tests'
     * token issuer and key (the jar of the {@code *IT}s runs the prod profile, which has none).
     */
    static Map<String, String> common(String strategy) {
        Map<String, String> settings = new java.util.HashMap<>(Tokens.verification());
        settings.put("flashstock.strategy", strategy);
        settings.put("flashstock.expiry.interval", "1s");
        // A management port of its own, not 9000, which another service on the machine may hold.
        settings.put("quarkus.management.port", "0");
        return settings;
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

    /** redis-lua with write-through persistence; a short quiet period so that reconciling is observable. */
    public static class RedisLuaWriteThrough implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return redisLua("write-through");
        }
    }

    /** redis-lua with write-behind persistence. */
    public static class RedisLuaWriteBehind implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return redisLua("write-behind");
        }
    }

    /**
     * db-optimistic for the gate's MySQL fault cases ({@code DbOptimisticMySqlCutTest}, {@code DbOptimisticMySqlHungTest},
     * one Quarkus start for both): see {@link #shortMySqlTimeouts}.
     */
    public static class DbOptimisticMySqlFaults implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return shortMySqlTimeouts(common("db-optimistic"));
        }
    }

    /**
     * In the gate, MySQL times out sooner (a 2 s socket timeout instead of 5 s, a 6 s transaction timeout instead of
     * 15 s), so a hang that outlasts every bound is 8 s, not 20; the full lane keeps the shipped timeouts.
     */
    static Map<String, String> shortMySqlTimeouts(Map<String, String> settings) {
        if (!Lane.full()) {
            settings.put("quarkus.datasource.jdbc.additional-jdbc-properties.socketTimeout", "2000");
            settings.put("quarkus.transaction-manager.default-transaction-timeout", "6s");
        }
        return settings;
    }

    static Map<String, String> redisLua(String persistence) {
        Map<String, String> settings = new java.util.HashMap<>(common("redis-lua"));
        settings.put("flashstock.lua.persistence", persistence);
        settings.put("flashstock.lua.reconcile-after-quiet", "1s");
        settings.put("flashstock.lua.claim-after", "2s");
        return settings;
    }
}
