package io.flashstock.deduction.lua;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * How purchases of one item go to Redis together, in one call of {@code lua/purchase_batch.lua}: which purchases may
 * share a call, and the call's KEYS and ARGV, laid out from each purchase's own {@code lua/purchase.lua} KEYS and ARGV
 * ({@link HotStock#purchaseKeys}, {@link HotStock#purchaseArgs}). {@link PurchaseCombiner} forms the batches.
 */
final class CombinedCall {

    /** Keys of purchase.lua that are the item's (the rest are the purchase's own). */
    private static final int ITEM_KEYS = 4;
    /** purchase.lua's keys of one purchase after the item's: the user's key, its tombstone, the key's older name. */
    private static final int OWN_KEYS = 3;
    /**
     * purchase.lua's ARGV count of each purchase's own values, which come first. A call sends the rest once, with its
     * first purchase, so it only holds purchases whose rest is the same ({@link #mayJoin}).
     */
    private static final int OWN_ARGS = 7;

    private CombinedCall() {
    }

    /**
     * Whether a purchase with purchase.lua's ARGV {@code next} may go in the call led by one with {@code first}: the
     * values past its own (the Idempotency-Key TTL, the answering pod, the mode, the stream's bound, the generation,
     * the cart) are the same. All but the generation are fixed per pod for a single purchase, and it changes when the
     * pod takes up a new one ({@link HotStockWarmer}): a purchase built after that must be answered {@code STALE} by a
     * hash of the old generation, as it would be alone, not decided under the generation of a purchase built before.
     */
    static boolean mayJoin(List<String> first, List<String> next) {
        if (first.size() != next.size()) {
            return false;
        }
        for (int i = OWN_ARGS; i < first.size(); i++) {
            if (!first.get(i).equals(next.get(i))) {
                return false;
            }
        }
        return true;
    }

    /**
     * The call's KEYS: the item's, then each purchase's own by kind (purchase_batch.lua reads each kind of all
     * purchases in one command): every user's key, every tombstone, every older key name.
     */
    static <T> List<String> keys(List<T> batch, Function<T, List<String>> keysOf) {
        List<String> keys = new ArrayList<>(ITEM_KEYS + OWN_KEYS * batch.size());
        keys.addAll(keysOf.apply(batch.get(0)).subList(0, ITEM_KEYS));
        for (int kind = ITEM_KEYS; kind < ITEM_KEYS + OWN_KEYS; kind++) {
            for (T purchase : batch) {
                keys.add(keysOf.apply(purchase).get(kind));
            }
        }
        return keys;
    }

    /** The call's ARGV: the first purchase's, then each other purchase's own values. */
    static <T> List<String> args(List<T> batch, Function<T, List<String>> argsOf) {
        List<String> first = argsOf.apply(batch.get(0));
        List<String> args = new ArrayList<>(first.size() + OWN_ARGS * (batch.size() - 1));
        args.addAll(first);
        for (int i = 1; i < batch.size(); i++) {
            args.addAll(argsOf.apply(batch.get(i)).subList(0, OWN_ARGS));
        }
        return args;
    }
}
