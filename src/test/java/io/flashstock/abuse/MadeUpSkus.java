package io.flashstock.abuse;

import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntFunction;

import io.flashstock.error.FlashstockException;

/**
 * Storms of made-up skus for the abuse tests (issue 32, "An abuse suite in the tests"): many requests, each for a sku
 * no item has, sent by a few threads straight to the bean the endpoint calls (a few thousand per second on 2 cores,
 * against about a thousand over HTTP), so that a storm big enough to show a leak fits in a test's seconds. The answers
 * are tallied by kind and nothing of a request is kept, so the storm itself leaves no sku in the test's heap.
 */
public final class MadeUpSkus {

    private MadeUpSkus() {
    }

    /**
     * A prefix no item and no other storm has: {@code ghost-<8 hex>-}. Each sku of the storm is the prefix and a
     * number ({@link #sku}), so {@link HeapAfterGc#retained} can count what of them is still in the heap.
     */
    public static String prefix() {
        return "ghost-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    }

    /** The storm's {@code index}th sku: the prefix and the index, about 20 characters as in bench/abuse.sh. */
    public static String sku(String prefix, int index) {
        return prefix + index;
    }

    /**
     * Runs {@code request(i)} for i in 0..count-1 on {@code threads} threads; what each answered, by kind, with
     * how many: the kind a request returns ("ok", say), or the code of the {@link FlashstockException} it threw
     * ("item-not-found"), or the exception's class for anything else.
     */
    public static Map<String, Long> storm(int count, int threads, IntFunction<String> request) {
        Map<String, LongAdder> answers = new ConcurrentHashMap<>();
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int t = 0; t < threads; t++) {
                pool.execute(() -> {
                    for (int i; (i = next.getAndIncrement()) < count;) {
                        String answer;
                        try {
                            answer = request.apply(i);
                        } catch (FlashstockException e) {
                            answer = e.code().code();
                        } catch (RuntimeException e) {
                            answer = e.getClass().getSimpleName();
                        }
                        answers.computeIfAbsent(answer, k -> new LongAdder()).increment();
                    }
                });
            }
            pool.shutdown();
            if (!pool.awaitTermination(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("the storm did not end in 10 minutes");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            pool.shutdownNow();
        }
        Map<String, Long> tally = new TreeMap<>();
        answers.forEach((answer, n) -> tally.put(answer, n.sum()));
        return tally;
    }

    /** The tally of a storm whose every one of {@code count} requests was answered {@code answer}. */
    public static Map<String, Long> all(String answer, int count) {
        return Map.of(answer, (long) count);
    }
}
