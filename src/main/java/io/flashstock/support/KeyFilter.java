package io.flashstock.support;

import java.nio.charset.StandardCharsets;
import java.util.Collection;

/**
 * A Bloom filter over the Idempotency-Keys of an item's successful purchases, each with its user
 * ({@link #entry}): {@link #mayContain} is never false for a key that was added (no false negatives), and true for a
 * key that was not in about 1% of cases. Ten bits per key, seven probes (double hashing of a 64-bit FNV-1a hash and a
 * second, differently seeded one). A pod holds one per sold-out item, built from the item's keyed orders, so it is
 * bounded by the item's stock, not by the requests it answers.
 */
public final class KeyFilter {

    private static final int PROBES = 7;
    private static final int BITS_PER_KEY = 10;

    private final long[] words;
    private final long bits;
    private final int size;

    private KeyFilter(int keys) {
        this.bits = Math.max(64, (long) keys * BITS_PER_KEY);
        this.words = new long[(int) ((bits + 63) / 64)];
        this.size = keys;
    }

    /** The filter of {@code entries} (each made by {@link #entry}). */
    public static KeyFilter of(Collection<String> entries) {
        KeyFilter filter = new KeyFilter(entries.size());
        for (String entry : entries) {
            long first = hash(entry, 0xcbf29ce484222325L);
            long second = hash(entry, 0x84222325cbf29ce4L) | 1;
            for (int i = 0; i < PROBES; i++) {
                long bit = Math.floorMod(first + i * second, filter.bits);
                filter.words[(int) (bit >>> 6)] |= 1L << bit;
            }
        }
        return filter;
    }

    /** What a filter holds for the Idempotency-Key {@code key} of {@code userId}: keys are their caller's own. */
    public static String entry(String userId, String key) {
        return userId + '\n' + key;
    }

    /** False only if {@code entry} was certainly not added. */
    public boolean mayContain(String entry) {
        long first = hash(entry, 0xcbf29ce484222325L);
        long second = hash(entry, 0x84222325cbf29ce4L) | 1;
        for (int i = 0; i < PROBES; i++) {
            long bit = Math.floorMod(first + i * second, bits);
            if ((words[(int) (bit >>> 6)] & (1L << bit)) == 0) {
                return false;
            }
        }
        return true;
    }

    /** How many keys it was built from. */
    public int size() {
        return size;
    }

    private static long hash(String text, long basis) {
        long hash = basis;
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            hash ^= b & 0xff;
            hash *= 0x100000001b3L;
        }
        hash ^= hash >>> 33; // spread FNV's weak low bits before they pick a bit
        hash *= 0xff51afd7ed558ccdL;
        return hash ^ (hash >>> 33);
    }
}
