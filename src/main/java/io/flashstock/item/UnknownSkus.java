package io.flashstock.item;

import java.time.Duration;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.flashstock.support.TrackedItems;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The skus a pod found not to be items, answered 404 from memory for {@code flashstock.availability.unknown-sku-ttl}:
 * a storm of made-up skus costs one look-up per sku and TTL, and nothing else. Bounded ({@link #MAX}, Caffeine's
 * eviction past it). {@link Availability} asks it only while the units-back subscription is up, over which every
 * creation is announced ({@link #exists}).
 */
final class UnknownSkus {

    /** Made-up skus remembered at most (about 100 bytes each). */
    static final int MAX = 10_000;

    private final Cache<String, Boolean> unknown;
    /**
     * When each sku was last created or changed (System.nanoTime), so that a "not found" answered from before it is
     * not remembered. Bounded like {@link #unknown}, and kept as long.
     */
    private final Cache<String, Long> changedAt;
    private final Counter fromMemory;

    UnknownSkus(Duration ttl, MeterRegistry registry) {
        this.unknown = Caffeine.newBuilder().maximumSize(MAX).expireAfterWrite(ttl).build();
        this.changedAt = Caffeine.newBuilder().maximumSize(MAX).expireAfterWrite(ttl).build();
        this.fromMemory = Counter.builder("flashstock.items.not-found.from-memory")
                .description("Requests answered 404 item-not-found from the pod's memory of made-up skus")
                .register(registry);
        TrackedItems.register(registry, "unknown-skus", "any", unknown, Cache::estimatedSize);
    }

    /** Whether the sku was found missing within the TTL and not created since (counted when true). */
    boolean knownMissing(String sku) {
        if (unknown.getIfPresent(sku) == null) {
            return false;
        }
        fromMemory.increment();
        return true;
    }

    /** A look-up that began at {@code askedAt} found no item: remembered, unless it was created since it began. */
    void notFound(String sku, long askedAt) {
        Long changed = changedAt.getIfPresent(sku);
        if (changed == null || changed - askedAt < 0) {
            unknown.put(sku, Boolean.TRUE);
        }
    }

    /** The sku is an item (created, or a change of it was announced): never answered 404 from memory now. */
    void exists(String sku) {
        changedAt.put(sku, System.nanoTime());
        unknown.invalidate(sku);
    }

    /** Forgets every sku: a creation may have been announced to no one here. */
    void clear() {
        unknown.invalidateAll();
    }
}
