package io.flashstock.support;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Per-key objects (a lane, a lock) that exist only while someone uses them: {@link #use} creates the key's object or
 * joins the one in use and counts the user in, and the last user out removes it. The count changes only inside the
 * map's atomic {@code compute} of the key, so an object is never removed while a user holds it, and two users of a key
 * at the same time always share one object. Memory follows the keys in use now: made-up skus and items no longer sold
 * leave nothing behind.
 *
 * @param <V> the per-key object
 */
public final class InUse<V> {

    private final Map<String, Counted<V>> byKey = new ConcurrentHashMap<>();
    private final Supplier<V> create;

    public InUse(Supplier<V> create) {
        this.create = create;
    }

    /** Runs {@code work} with the key's object, created for it or shared with its other users now. */
    public <R> R use(String key, Function<V, R> work) {
        Counted<V> counted = byKey.compute(key, (k, existing) -> {
            Counted<V> entry = existing == null ? new Counted<>(create.get()) : existing;
            entry.users++;
            return entry;
        });
        try {
            return work.apply(counted.value);
        } finally {
            byKey.computeIfPresent(key, (k, entry) -> --entry.users == 0 ? null : entry);
        }
    }

    /** How many keys have an object now (for tests and gauges). */
    public int size() {
        return byKey.size();
    }

    private static final class Counted<V> {
        final V value;
        int users;

        Counted(V value) {
            this.value = value;
        }
    }
}
