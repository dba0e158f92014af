package io.flashstock.deduction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.flashstock.deduction.Combiner.Result;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.ProblemCode;
import io.flashstock.error.UnavailableException;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link AsyncCombiner} without Quarkus, on a Vert.x of its own: every request gets exactly its own answer, from a
 * batch of its key or from its bounds, and no thread waits for it.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class AsyncCombinerTest {

    private final DistributionSummary sizes = DistributionSummary.builder("test.batch").register(new SimpleMeterRegistry());
    private final ExecutorService workers = Executors.newFixedThreadPool(4);
    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void stop() {
        workers.shutdownNow();
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    private AsyncCombiner<Integer, String> combiner(Function<List<Integer>, List<Result<String>>> batch,
            Duration maxWait, Duration decideWithin) {
        return new AsyncCombiner<>(batch, workers, vertx, 8, maxWait, decideWithin, sizes);
    }

    private static CompletableFuture<String> answer(AsyncCombiner<Integer, String> combiner, String key, int request) {
        return combiner.submit(key, request).subscribeAsCompletionStage();
    }

    @Test
    void requestsQueuedBehindARunningBatchGoTogetherAndEachGetsItsOwnAnswer() throws Exception {
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Set<String> threads = ConcurrentHashMap.newKeySet();
        AsyncCombiner<Integer, String> combiner = combiner(requests -> {
            threads.add(Thread.currentThread().getName());
            firstRunning.countDown();
            await(release);
            return requests.stream().map(r -> r % 5 == 0 ? Result.<String>refused(FlashstockException.soldOut("x", r))
                    : Result.of("answer-" + r)).toList();
        }, Duration.ofSeconds(5), Duration.ofSeconds(10));
        List<CompletableFuture<String>> answers = new ArrayList<>();
        answers.add(answer(combiner, "item", 1));
        assertTrue(firstRunning.await(5, TimeUnit.SECONDS));
        for (int i = 2; i <= 12; i++) { // these queue behind the running batch, no thread held for any of them
            answers.add(answer(combiner, "item", i));
        }
        release.countDown();
        for (int i = 1; i <= 12; i++) {
            if (i % 5 == 0) {
                Throwable e = failure(answers.get(i - 1));
                assertTrue(e instanceof FlashstockException f && f.code() == ProblemCode.SOLD_OUT, e.toString());
            } else {
                assertEquals("answer-" + i, answers.get(i - 1).get(5, TimeUnit.SECONDS));
            }
        }
        assertEquals(3, sizes.count(), "the idle key's first request alone, then the 11 queued in batches of 8 and 3");
        assertEquals(8, sizes.max(), 0.0);
        assertEquals(12, (long) sizes.totalAmount());
        assertEquals(1, threads.size(), "one worker ran the key's batches one after the other: " + threads);
        assertNoLaneLeft(combiner);
    }

    @Test
    void keysKeepNoLaneOnceAnsweredAndDoNotShareBatches() throws Exception {
        AsyncCombiner<Integer, String> combiner = combiner(requests -> {
            assertTrue(requests.stream().map(r -> r % 3).distinct().count() == 1, "one key per batch: " + requests);
            return requests.stream().map(r -> Result.of("answer-" + r)).toList();
        }, Duration.ofSeconds(5), Duration.ofSeconds(10));
        List<CompletableFuture<String>> answers = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) { // lanes come and go while requests queue on them
            answers.add(answer(combiner, "hot-" + i % 3, i));
        }
        for (int i = 0; i < answers.size(); i++) {
            assertEquals("answer-" + i, answers.get(i).get(5, TimeUnit.SECONDS));
        }
        assertNoLaneLeft(combiner);
    }

    @Test
    void aBatchThatFailsAnswersEveryRequestOfItWithItsFailure() throws Exception {
        IllegalStateException database = new IllegalStateException("database gone");
        AsyncCombiner<Integer, String> combiner = combiner(requests -> {
            throw database;
        }, Duration.ofSeconds(5), Duration.ofSeconds(10));
        assertSame(database, failure(answer(combiner, "item", 1)));
        AsyncCombiner<Integer, String> dying = combiner(requests -> {
            throw new StackOverflowError("simulated");
        }, Duration.ofSeconds(5), Duration.ofSeconds(10));
        assertTrue(failure(answer(dying, "item", 1)) instanceof UnavailableException);
        AsyncCombiner<Integer, String> short1 = combiner(requests -> List.of(), Duration.ofSeconds(5),
                Duration.ofSeconds(10));
        assertTrue(failure(answer(short1, "item", 1)) instanceof IllegalStateException, "too few answers fail");
        assertNoLaneLeft(combiner);
        assertNoLaneLeft(dying);
        assertNoLaneLeft(short1);
    }

    /**
     * Behind a batch that hangs (a MySQL that does not answer): the requests still queued are answered 503 at maxWait
     * and never run; the one in the hung batch is answered outcome-unknown at decideWithin, not when its batch ends.
     */
    @Test
    void behindAHungBatchTheQueuedAre503AndTheTakenOutcomeUnknown() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        AsyncCombiner<Integer, String> combiner = combiner(requests -> {
            ran.addAndGet(requests.size());
            await(release);
            return requests.stream().map(r -> Result.of("ok-" + r)).toList();
        }, Duration.ofMillis(500), Duration.ofMillis(1_500));
        long start = System.nanoTime();
        CompletableFuture<String> taken = answer(combiner, "item", 1);
        Thread.sleep(100);
        List<CompletableFuture<String>> queued = new ArrayList<>();
        for (int i = 2; i <= 5; i++) {
            queued.add(answer(combiner, "item", i));
        }
        for (CompletableFuture<String> answer : queued) {
            Throwable e = failure(answer);
            assertTrue(e instanceof UnavailableException, e.toString());
        }
        long queuedAnswered = System.nanoTime() - start;
        Throwable unknown = failure(taken);
        long takenAnswered = System.nanoTime() - start;
        assertTrue(unknown instanceof FlashstockException f && f.code() == ProblemCode.OUTCOME_UNKNOWN,
                unknown.toString());
        assertTrue(queuedAnswered < TimeUnit.MILLISECONDS.toNanos(1_200), "queued answered at maxWait");
        assertTrue(takenAnswered >= TimeUnit.MILLISECONDS.toNanos(1_400)
                && takenAnswered < TimeUnit.MILLISECONDS.toNanos(3_000), "taken answered at decideWithin");
        release.countDown();
        assertNoLaneLeft(combiner);
        assertEquals(1, ran.get(), "the requests answered 503 never reached a batch");
    }

    /** The worker that answered a key's last batch drops its lane right after: within moments, not at once. */
    private static void assertNoLaneLeft(AsyncCombiner<?, ?> combiner) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (combiner.lanes() > 0 && System.nanoTime() < until) {
            Thread.sleep(5);
        }
        assertEquals(0, combiner.lanes(), "a lane outlived its requests");
    }

    private static Throwable failure(CompletableFuture<String> answer) throws Exception {
        try {
            String value = answer.get(5, TimeUnit.SECONDS);
            return fail("answered " + value);
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
