package io.flashstock.deduction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.flashstock.deduction.Combiner.Result;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.ProblemCode;
import io.flashstock.error.UnavailableException;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Per-key batching without Quarkus: every request gets exactly its own answer, whatever a batch does. */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class CombinerTest {

    private final DistributionSummary sizes = DistributionSummary.builder("test.batch").register(new SimpleMeterRegistry());
    private final ExecutorService pool = Executors.newFixedThreadPool(16);

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    @Test
    void concurrentRequestsAreBatchedAndEachGetsItsOwnAnswer() throws Exception {
        Combiner<Integer, String> combiner = new Combiner<>(8, Duration.ofSeconds(5), Duration.ofSeconds(30), sizes);
        CountDownLatch firstBatchRunning = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Function<List<Integer>, List<Result<String>>> batch = requests -> {
            firstBatchRunning.countDown();
            await(release);
            return requests.stream().map(r -> r % 5 == 0 ? Result.<String>refused(FlashstockException.soldOut("x", r))
                    : Result.of("answer-" + r)).toList();
        };
        List<Future<String>> answers = new ArrayList<>();
        answers.add(pool.submit(() -> combiner.submit("item", 1, batch)));
        assertTrue(firstBatchRunning.await(5, TimeUnit.SECONDS));
        for (int i = 2; i <= 12; i++) { // these queue behind the running batch
            int request = i;
            answers.add(pool.submit(() -> combiner.submit("item", request, batch)));
        }
        Thread.sleep(200);
        release.countDown();
        for (int i = 1; i <= 12; i++) {
            int request = i;
            if (request % 5 == 0) {
                Exception e = assertThrows(Exception.class, () -> answers.get(request - 1).get());
                assertTrue(e.getCause() instanceof FlashstockException f && f.code() == ProblemCode.SOLD_OUT, e.toString());
            } else {
                assertEquals("answer-" + request, answers.get(request - 1).get());
            }
        }
        assertTrue(sizes.max() > 1, "queued requests ran as one batch: max batch " + sizes.max());
        assertTrue(sizes.max() <= 8, "never more than maxBatch: " + sizes.max());
        assertEquals(12, (long) sizes.totalAmount());
    }

    @Test
    void aKeyKeepsNoLaneOnceItsRequestsAreAnswered() throws Exception {
        Combiner<Integer, String> combiner = new Combiner<>(8, Duration.ofSeconds(5), Duration.ofSeconds(30), sizes);
        for (int i = 0; i < 1_000; i++) { // made-up keys, each refused: nothing of them stays
            String key = "made-up-" + i;
            assertThrows(FlashstockException.class, () -> combiner.submit(key, 1,
                    requests -> requests.stream().map(r -> Result.<String>refused(FlashstockException.itemNotFound(key)))
                            .toList()));
        }
        assertEquals(0, combiner.lanes());
        List<Future<String>> answers = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) { // 16 threads over 3 keys: lanes come and go while requests queue on them
            int request = i;
            answers.add(pool.submit(() -> combiner.submit("hot-" + request % 3, request,
                    requests -> requests.stream().map(r -> Result.of("answer-" + r)).toList())));
        }
        for (int i = 0; i < answers.size(); i++) {
            assertEquals("answer-" + i, answers.get(i).get(5, TimeUnit.SECONDS));
        }
        assertEquals(0, combiner.lanes());
    }

    @Test
    void aBatchThatThrowsAnswersEveryRequestOfIt() {
        Combiner<Integer, String> combiner = new Combiner<>(8, Duration.ofSeconds(5), Duration.ofSeconds(30), sizes);
        IllegalStateException failure = new IllegalStateException("database gone");
        IllegalStateException thrown = assertThrows(IllegalStateException.class,
                () -> combiner.submit("item", 1, requests -> {
                    throw failure;
                }));
        assertSame(failure, thrown);
    }

    @Test
    void anErrorInABatchLeavesNoRequestWaiting() throws Exception {
        Combiner<Integer, String> combiner = new Combiner<>(8, Duration.ofSeconds(5), Duration.ofSeconds(30), sizes);
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Function<List<Integer>, List<Result<String>>> dying = requests -> {
            running.countDown();
            await(release);
            throw new StackOverflowError("simulated");
        };
        List<Future<String>> answers = new ArrayList<>();
        answers.add(pool.submit(() -> combiner.submit("item", 1, dying)));
        assertTrue(running.await(5, TimeUnit.SECONDS));
        for (int i = 2; i <= 6; i++) {
            int request = i;
            answers.add(pool.submit(() -> combiner.submit("item", request, dying)));
        }
        Thread.sleep(200);
        release.countDown();
        for (Future<String> answer : answers) {
            Exception e = assertThrows(Exception.class, () -> answer.get(5, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof UnavailableException, e.toString());
        }
    }

    @Test
    void aBatchAnsweringTooFewRequestsFailsTheRestInsteadOfHanging() {
        Combiner<Integer, String> combiner = new Combiner<>(8, Duration.ofSeconds(5), Duration.ofSeconds(30), sizes);
        assertThrows(IllegalStateException.class, () -> combiner.submit("item", 1, requests -> List.of()));
    }

    @Test
    void keysDoNotShareBatches() throws Exception {
        Combiner<String, String> combiner = new Combiner<>(8, Duration.ofSeconds(5), Duration.ofSeconds(30), sizes);
        List<Future<String>> answers = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String key = "item-" + (i % 4);
            answers.add(pool.submit(() -> combiner.submit(key, key, requests -> {
                assertTrue(requests.stream().allMatch(key::equals), "one key per batch: " + requests);
                return requests.stream().map(Result::of).toList();
            })));
        }
        for (int i = 0; i < 20; i++) {
            assertEquals("item-" + (i % 4), answers.get(i).get());
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A request taken by another request's batch that hangs (a MySQL that does not answer) is answered
     * outcome-unknown once its own decideWithin has passed, not when the batch gives up: its order may still be
     * committed by that batch, so nothing more definite can be said.
     */
    @Test
    void aRequestInAHungBatchIsAnsweredOutcomeUnknownInTime() throws Exception {
        Combiner<Integer, String> combiner = new Combiner<>(8, Duration.ofSeconds(5), Duration.ofSeconds(1), sizes);
        CountDownLatch queued = new CountDownLatch(1);
        Function<List<Integer>, List<Result<String>>> slow = requests -> {
            if (requests.contains(1)) {
                await(queued); // the first batch ends once the others queue behind it
            } else {
                sleep(3_000); // the second batch hangs
            }
            return requests.stream().map(r -> Result.of("ok-" + r)).toList();
        };
        Future<String> first = pool.submit(() -> combiner.submit("item", 1, slow));
        Thread.sleep(100);
        List<Future<String>> answers = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 2; i <= 6; i++) {
            int request = i;
            answers.add(pool.submit(() -> combiner.submit("item", request, slow)));
        }
        Thread.sleep(100);
        queued.countDown();
        assertEquals("ok-1", first.get(5, TimeUnit.SECONDS));
        int unknown = 0;
        int decided = 0;
        for (Future<String> answer : answers) {
            try {
                answer.get(5, TimeUnit.SECONDS);
                decided++; // the request whose thread ran the hung batch
            } catch (ExecutionException e) {
                assertTrue(e.getCause() instanceof FlashstockException f
                        && f.code() == ProblemCode.OUTCOME_UNKNOWN, e.toString());
                unknown++;
            }
        }
        assertEquals(1, decided);
        assertEquals(4, unknown);
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(4), "answered in time");
    }

    /**
     * A request whose thread is interrupted (a worker pool shutting down) after a batch took it is answered
     * outcome-unknown, not "nothing was changed": the batch decides it all the same. Before, it was 503 unavailable.
     */
    @Test
    void aRequestInterruptedOnceABatchTookItIsOutcomeUnknown() throws Exception {
        Combiner<Integer, String> combiner = new Combiner<>(8, Duration.ofSeconds(5), Duration.ofSeconds(30), sizes);
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        CountDownLatch secondRunning = new CountDownLatch(1);
        CountDownLatch releaseSecond = new CountDownLatch(1);
        Thread[] runner = new Thread[1];
        List<Integer> decided = new java.util.concurrent.CopyOnWriteArrayList<>();
        Function<List<Integer>, List<Result<String>>> batch = requests -> {
            if (requests.contains(1)) {
                firstRunning.countDown();
                await(releaseFirst);
            } else {
                runner[0] = Thread.currentThread();
                secondRunning.countDown();
                await(releaseSecond);
            }
            decided.addAll(requests);
            return requests.stream().map(r -> Result.of("ok-" + r)).toList();
        };
        Future<String> first = pool.submit(() -> combiner.submit("item", 1, batch));
        assertTrue(firstRunning.await(5, TimeUnit.SECONDS));
        Object[] answers = new Object[4];
        List<Thread> waiting = new ArrayList<>();
        for (int request : List.of(2, 3)) { // both queue behind the first batch, then run as one
            Thread thread = new Thread(() -> {
                try {
                    answers[request] = combiner.submit("item", request, batch);
                } catch (RuntimeException e) {
                    answers[request] = e;
                }
            });
            waiting.add(thread);
            thread.start();
        }
        Thread.sleep(200);
        releaseFirst.countDown();
        assertEquals("ok-1", first.get(5, TimeUnit.SECONDS));
        assertTrue(secondRunning.await(5, TimeUnit.SECONDS));
        Thread interrupted = waiting.get(0) == runner[0] ? waiting.get(1) : waiting.get(0);
        interrupted.interrupt();
        interrupted.join(5_000);
        releaseSecond.countDown();
        for (Thread thread : waiting) {
            thread.join(5_000);
        }
        int request = waiting.indexOf(interrupted) + 2;
        assertEquals(List.of(1, 2, 3), decided.stream().sorted().toList(), "the batch decided it");
        assertTrue(answers[request] instanceof FlashstockException f && f.code() == ProblemCode.OUTCOME_UNKNOWN,
                String.valueOf(answers[request]));
        assertEquals("ok-" + (5 - request), answers[5 - request]);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
