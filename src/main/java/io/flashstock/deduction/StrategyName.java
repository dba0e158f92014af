package io.flashstock.deduction;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/** The names {@code flashstock.strategy} accepts. */
public enum StrategyName {
    DB_OPTIMISTIC("db-optimistic"),
    REDIS_LUA("redis-lua"),
    REDIS_LOCK("redis-lock");

    private final String configValue;

    StrategyName(String configValue) {
        this.configValue = configValue;
    }

    public String configValue() {
        return configValue;
    }

    public static Optional<StrategyName> parse(String value) {
        return Arrays.stream(values()).filter(s -> s.configValue.equals(value)).findFirst();
    }

    public static String allConfigValues() {
        return Arrays.stream(values()).map(StrategyName::configValue).collect(Collectors.joining(", "));
    }
}
