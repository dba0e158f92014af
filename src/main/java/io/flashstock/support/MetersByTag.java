package io.flashstock.support;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.micrometer.core.instrument.Meter;

/**
 * The meters of one name that differ by one tag's value, each registered once and then reused: a registry lookup
 * (tags built, sorted, filtered, hashed) per request costs more than the counting itself on the hot paths. Only for
 * tags with a small, fixed set of values (outcomes, problem codes), never for client input.
 */
public final class MetersByTag<M extends Meter> {

    private final Map<String, M> meters = new ConcurrentHashMap<>();
    private final Function<String, M> register;

    /** {@code register}: registers the meter for one tag value (called once per value). */
    public MetersByTag(Function<String, M> register) {
        this.register = register;
    }

    public M get(String tagValue) {
        M meter = meters.get(tagValue);
        return meter != null ? meter : meters.computeIfAbsent(tagValue, register);
    }
}
