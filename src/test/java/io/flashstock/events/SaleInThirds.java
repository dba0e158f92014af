package io.flashstock.events;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpRequest;
import java.sql.Connection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.function.BiFunction;

import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.Http;
import io.flashstock.testsupport.Http.Reply;
import io.flashstock.testsupport.OwnKafka;
import io.flashstock.testsupport.Pause;
import io.flashstock.testsupport.Shop;

/**
 * A sale over several items in three waves, for the fault tests that strike between them: buyer {@code i} buys one
 * unit of {@code skus[i % n]}, 16 at a time; the first third at once, the second third once
 * {@link #openSecondWithBrokerFrozen}, the last once {@link #openLast()} (a buyer held back longer than 30 s fails).
 */
final class SaleInThirds {

    private final List<String> skus;
    private final CountDownLatch second = new CountDownLatch(1);
    private final CountDownLatch last = new CountDownLatch(1);
    private final CompletableFuture<List<Reply>> replies;

    /** Starts the sale; {@code purchase} makes buyer {@code i}'s request for its sku. */
    SaleInThirds(List<String> skus, int buyers, BiFunction<Integer, String, HttpRequest> purchase) {
        this.skus = skus;
        replies = CompletableFuture.supplyAsync(() -> Http.concurrently(buyers, 16, i -> {
            Pause.await(i < buyers / 3 ? null : i < buyers * 2 / 3 ? second : last, 30_000);
            return purchase.apply(i, skus.get(i % skus.size()));
        }));
    }

    /** Waits until MySQL in {@code db} holds {@code orders} orders of the sale's items (20 s at most). */
    void awaitStored(Connection db, long orders) {
        assertTrue(Pause.until(() -> stored(db) >= orders, 20_000), orders + " orders stored within 20 s");
    }

    /** The orders of the sale's items in MySQL ({@code db}). */
    long stored(Connection db) {
        return Db.count(db, "SELECT COUNT(*) FROM purchase_order WHERE sku IN ("
                + String.join(",", Collections.nCopies(skus.size(), "?")) + ")", skus.toArray());
    }

    /**
     * Freezes {@code kafka} and lets the second third buy, so that publishing rounds lock buckets and wait for the
     * broker's acknowledgements; answers the MySQL connections of the rounds waiting, once there are at least
     * {@code rounds} (5 s at most, else fails). The broker stays frozen: the caller resumes it.
     */
    List<String> openSecondWithBrokerFrozen(OwnKafka kafka, Connection db, int rounds) {
        kafka.pause();
        second.countDown();
        List<String> waiting = PublishingRounds.awaitStuck(db, rounds, 5_000);
        assertTrue(waiting.size() >= rounds, rounds + " publishing rounds wait for the frozen broker, holding their"
                + " buckets: " + waiting);
        return waiting;
    }

    void openLast() {
        second.countDown();
        last.countDown();
    }

    /** Every buyer's answer, in buyer order, once all have one. */
    List<Reply> replies() throws InterruptedException, ExecutionException {
        return replies.get();
    }

    /** The order ids of the 201s, per item. */
    Map<String, Set<String>> sold() throws InterruptedException, ExecutionException {
        return Shop.soldBySku(replies(), skus);
    }
}
