package io.flashstock.faults;

import static io.flashstock.testsupport.Shop.byStatus;
import static io.flashstock.testsupport.Shop.createItem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;
import java.util.function.Supplier;

import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.Http;
import io.flashstock.testsupport.Http.Reply;
import io.flashstock.testsupport.Settlement;
import io.flashstock.testsupport.Json;

/**
 * A concurrent sale with a fault staged in the middle of it, and the checks every fault test makes afterwards:
 * no 500; every answer 201, 409 or 503 as problem+json; every 201 has its order; an order exists only for a 201 or
 * for an {@code outcome-unknown} answer, whose retry with the same Idempotency-Key returns it; once the relay and the
 * mirror have settled, MySQL's counters match its orders and never go past the stock; and at the end the item's
 * settlement report is {@code "consistent": true} ({@link Settlement}).
 */
final class FaultySale {

    /** What a test does to the service's dependencies while the sale runs. */
    @FunctionalInterface
    interface Fault {
        void stage() throws Exception;
    }

    /**
     * The sale's answers, in buyer order; with {@code answersMayBeLost} (the service was killed) a buyer may have had
     * no answer at all ({@link Http#NO_ANSWER}), which is as uncertain as {@code outcome-unknown}.
     */
    record Result(List<Reply> replies, Map<Integer, Long> statuses, boolean answersMayBeLost, long saleMillis) {

        long slowestMillis() {
            return replies.stream().mapToLong(Reply::millis).max().orElse(0);
        }
    }

    private FaultySale() {
    }

    /**
     * Creates {@code sku} with {@code stock} units, sends {@code buyers} purchases of one unit from 32 threads and,
     * once a tenth of the stock is sold, stages {@code fault}; returns when every buyer has an answer.
     */
    static Result sell(String sku, int stock, int buyers, Fault fault) throws Exception {
        return sell(sku, stock, buyers, i -> Http.uri(""), false, fault);
    }

    /**
     * As {@link #sell(String, int, int, Fault)}, buyer {@code i} sending to the service at {@code serviceFor.apply(i)};
     * with {@code answersMayBeLost}, the fault may take a service down with requests in flight.
     */
    static Result sell(String sku, int stock, int buyers, IntFunction<URI> serviceFor, boolean answersMayBeLost,
            Fault fault) throws Exception {
        long startedAt = System.currentTimeMillis();
        createItem(sku, stock, 0);
        CompletableFuture<List<Reply>> storm = CompletableFuture.supplyAsync(() -> Http.concurrently(buyers, 32,
                i -> purchase(serviceFor.apply(i), sku, i)));
        long deadline = System.currentTimeMillis() + 20_000;
        while (Db.orderCount(sku) < stock / 10 && System.currentTimeMillis() < deadline) {
            Thread.sleep(5);
        }
        fault.stage();
        List<Reply> replies = storm.get();
        return new Result(replies, byStatus(replies), answersMayBeLost, System.currentTimeMillis() - startedAt);
    }

    /** The invariants after the sale: see the class comment. */
    static void verify(String sku, int stock, Result result) throws InterruptedException {
        assertEquals(0, verify(sku, stock, result, false), "acknowledged orders lost");
    }

    /**
     * The invariants after the sale, except that with {@code lossAllowed} acknowledged orders may be missing (what
     * write-behind documents when Redis loses its data); returns how many are.
     */
    static int verify(String sku, int stock, Result result, boolean lossAllowed) throws InterruptedException {
        Map<Integer, Long> statuses = result.statuses();
        assertFalse(statuses.containsKey(500), "no 500: " + statuses);
        Set<String> acknowledged = new HashSet<>();
        List<Integer> uncertain = new ArrayList<>();
        for (int i = 0; i < result.replies().size(); i++) {
            Reply reply = result.replies().get(i);
            if (reply.status() == Http.NO_ANSWER && result.answersMayBeLost()) {
                uncertain.add(i);
                continue;
            }
            assertTrue(reply.status() == 201 || reply.status() == 409 || reply.status() == 503,
                    reply.status() + " " + reply.body());
            if (reply.status() == 201) {
                acknowledged.add(Json.text(reply.body(), "orderId"));
            } else {
                assertTrue(reply.contentType().startsWith("application/problem+json"), reply.contentType());
                if (reply.body().contains("outcome-unknown")) {
                    uncertain.add(i);
                }
            }
        }
        long verifyingAt = System.currentTimeMillis();
        acknowledged.addAll(retryUntilDecided(sku, uncertain)); // the first order, or a fresh decision
        acknowledged.remove(null);
        long settlingAt = System.currentTimeMillis();
        Set<String> stored = awaitSettled(sku, lossAllowed ? Set.of() : acknowledged);
        long settledAt = System.currentTimeMillis();
        Set<String> lost = new HashSet<>(acknowledged);
        lost.removeAll(stored);
        if (!lossAllowed) {
            assertEquals(Set.of(), lost, "every 201 has its order: " + statuses);
        }
        Set<String> phantoms = new HashSet<>(stored);
        phantoms.removeAll(acknowledged);
        assertEquals(Set.of(), phantoms, "orders nobody was told about: " + statuses + ", " + uncertain.size()
                + " outcome-unknown");
        assertTrue(stored.size() <= stock, "no oversell");
        Map<String, Long> row = Db.item(sku);
        assertEquals(stock - stored.size(), row.get("available"), "MySQL's counters match its orders: " + row);
        sellsOutExactly(sku, stock);
        Settlement.assertConsistent(sku); // the item's books add up: counters, orders, ledger, Redis + pending
        // Where a fault case's time goes (the gate's budget is spent here): the sale with its fault, the retries of
        // uncertain answers, the wait for the orders to settle, and selling out what is left.
        System.out.printf("[fault-time] %s: sale and fault %d ms, %d retries %d ms, settle %d ms, sell-out %d ms%n",
                sku, result.saleMillis(), uncertain.size(), settlingAt - verifyingAt, settledAt - settlingAt,
                System.currentTimeMillis() - settledAt);
        return lost.size();
    }

    /**
     * After the fault, later buyers take every unit left and then get 409 sold-out: no unit is stranded (held by a
     * Redis that thinks it sold, or by an entry nobody persists), and the item's orders end equal to its stock.
     */
    private static void sellsOutExactly(String sku, int stock) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 60_000;
        for (int round = 0;; round++) {
            int first = round * 50;
            List<Reply> replies = Http.concurrently(50, 16, i -> Http.post(Http.uri("/items/" + sku + "/purchases"),
                    "{\"userId\":\"after-" + (first + i) + "\",\"quantity\":1}").build());
            Map<Integer, Long> statuses = byStatus(replies);
            assertFalse(statuses.containsKey(500), "no 500 while selling out: " + statuses);
            if (statuses.getOrDefault(409, 0L) == replies.size() && stillSoldOut(sku)) {
                break;
            }
            assertTrue(System.currentTimeMillis() < deadline, "the item did not sell out within 60 s: " + statuses);
            if (!statuses.containsKey(201)) {
                Thread.sleep(200); // 503 while the service heals
            }
        }
        Set<String> stored = awaitSoldOutOrders(sku, stock);
        Map<String, Long> row = Db.item(sku);
        assertEquals(stock, stored.size(), "orders == stock once sold out: " + row);
        assertEquals(0L, row.get("available"), "nothing left available once sold out: " + row);
    }

    /**
     * Sold out a little later too: a pod answers sold-out from memory for up to the availability cache's TTL (1 s)
     * when it missed the units-back message (Redis lost its data), never longer.
     */
    private static boolean stillSoldOut(String sku) throws InterruptedException {
        Thread.sleep(1_200);
        Reply reply = Http.send(Http.post(Http.uri("/items/" + sku + "/purchases"),
                "{\"userId\":\"after-check\",\"quantity\":1}").build());
        return reply.status() == 409;
    }

    /** The counters the hot stock and MySQL must agree on, in this order. */
    static final String[] COUNTERS = {"stock", "available", "reserved", "sold"};

    /** The {@link #COUNTERS} of a hash read as a map ({@code "null"} where missing). */
    static List<String> counters(Map<String, String> hash) {
        return Arrays.stream(COUNTERS).map(f -> String.valueOf(hash.get(f))).toList();
    }

    /**
     * The item's hot counters in Redis (stock, available, reserved, sold; {@code hot} reads them) equal MySQL's
     * within 30 s.
     */
    static void awaitHotStockAgrees(String sku, Supplier<List<String>> hot)
            throws InterruptedException {
        long deadline = System.currentTimeMillis() + 30_000;
        List<String> expected;
        List<String> actual;
        do {
            Map<String, Long> row = Db.item(sku);
            expected = Arrays.stream(COUNTERS).map(f -> String.valueOf(row.get(f))).toList();
            actual = hot.get();
            if (expected.equals(actual)) {
                return;
            }
            Thread.sleep(200);
        } while (System.currentTimeMillis() < deadline);
        assertEquals(expected, actual, "Redis's counters (stock, available, reserved, sold) == MySQL's");
    }

    /**
     * Retries the purchases of {@code buyers}, 16 at a time, each with its Idempotency-Key until it has a definite
     * answer; the order ids of the 201s (null for a refusal). Each buyer's retries are in order; buyers are
     * independent (their own user and key), so retrying them side by side decides the same and waits less.
     */
    private static List<String> retryUntilDecided(String sku, List<Integer> buyers) throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            List<Future<String>> decided = new ArrayList<>();
            for (int buyer : buyers) {
                decided.add(pool.submit(() -> retryUntilDecided(purchase(Http.uri(""), sku, buyer))));
            }
            List<String> orderIds = new ArrayList<>();
            for (Future<String> orderId : decided) {
                orderIds.add(orderId.get());
            }
            return orderIds;
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    /** Retries a purchase with its Idempotency-Key until it has a definite answer; the order id of a 201, or null. */
    private static String retryUntilDecided(HttpRequest request) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 20_000;
        while (true) {
            Reply reply = Http.send(request);
            if (reply.status() == 201) {
                return Json.text(reply.body(), "orderId");
            }
            boolean pending = reply.body().contains("outcome-unknown") || reply.body().contains("request-in-progress")
                    || reply.status() == 503 || reply.status() == Http.NO_ANSWER;
            if (!pending || System.currentTimeMillis() > deadline) {
                return null;
            }
            Thread.sleep(200);
        }
    }

    /** How long the item's orders must stay unchanged to count as settled. */
    private static final long SETTLED_FOR_MILLIS = 2_500;

    /**
     * The item's orders in MySQL once they hold every order in {@code expected} and have not changed for
     * {@link #SETTLED_FOR_MILLIS}: a relay that stalls for a while (write-behind after an outage) must not pass for one
     * that is done. Reads every 250 ms, so a sale that settles at once costs the quiet window and no more. Gives up
     * after 30 s.
     */
    private static Set<String> awaitSettled(String sku, Set<String> expected) throws InterruptedException {
        Set<String> previous = null;
        long unchangedSince = 0;
        long deadline = System.currentTimeMillis() + 30_000;
        while (true) {
            long readAt = System.currentTimeMillis();
            Set<String> now = new HashSet<>(Db.orderIds(sku));
            if (!now.equals(previous)) {
                previous = now;
                unchangedSince = readAt;
            } else if (now.containsAll(expected) && readAt - unchangedSince >= SETTLED_FOR_MILLIS) {
                return now;
            }
            if (readAt > deadline) {
                return previous;
            }
            Thread.sleep(250);
        }
    }

    /**
     * The item's orders once there are {@code stock} of them (MySQL's {@code CHECK (available >= 0)} admits no more,
     * so none can land later), or once they have settled short of that ({@link #awaitSettled}: the caller's assertion
     * then fails). Selling out needs no quiet window to be sure.
     */
    private static Set<String> awaitSoldOutOrders(String sku, int stock) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 30_000;
        while (System.currentTimeMillis() < deadline) {
            Set<String> now = new HashSet<>(Db.orderIds(sku));
            if (now.size() >= stock) {
                return now;
            }
            Thread.sleep(250);
        }
        return awaitSettled(sku, Set.of());
    }

    private static HttpRequest purchase(URI service, String sku, int buyer) {
        return Http.post(service.resolve("/items/" + sku + "/purchases"),
                "{\"userId\":\"b-" + buyer + "\",\"quantity\":1}")
                .header("Idempotency-Key", sku + "-" + buyer).build();
    }
}
