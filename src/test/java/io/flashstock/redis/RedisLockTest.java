package io.flashstock.redis;

import static io.flashstock.testsupport.Shop.assertCounters;
import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static io.flashstock.testsupport.Shop.purchase;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.deduction.lock.FencedReservation;
import io.flashstock.error.UnavailableException;
import io.flashstock.support.Timestamps;
import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.OwnRedisResource;
import io.flashstock.testsupport.Shop;
import io.restassured.response.Response;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/** The lock component against a real Redis of its own (it restarts it): mutual exclusion, fencing, renewal, loss. */
@QuarkusTest
@TestProfile(StrategyProfiles.RedisLock.class)
@WithTestResource(OwnRedisResource.class)
class RedisLockTest {

    @Inject
    RedisLock locks;

    @Inject
    FencedReservation fenced;

    @Inject
    RedisDataSource redis;

    @Inject
    MeterRegistry meters;

    @Test
    void sixteenThreadsNeverHoldTheLockTogether() throws Exception {
        String sku = newSku("mutex");
        int threads = 16;
        int rounds = 100;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger mostInside = new AtomicInteger();
        Set<Long> fences = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch gate = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(pool.submit(() -> {
                gate.await();
                for (int i = 0; i < rounds; i++) {
                    Lease lease = locks.acquire(sku, Duration.ofSeconds(5), Duration.ofSeconds(60));
                    int now = inside.incrementAndGet();
                    mostInside.accumulateAndGet(now, Math::max);
                    fences.add(lease.fence());
                    Thread.onSpinWait();
                    inside.decrementAndGet();
                    assertTrue(lease.release(), "a held lease releases cleanly");
                }
                return null;
            }));
        }
        gate.countDown();
        for (Future<?> worker : workers) {
            worker.get();
        }
        pool.shutdown();
        assertEquals(1, mostInside.get(), "holders inside the critical section at once");
        assertEquals(threads * rounds, fences.size(), "every grant got its own fencing token");
        assertEquals(0, locks.heldCount());
        assertNull(redis.value(String.class).get(RedisKeys.lock(sku)), "no key left behind");
    }

    @Test
    void holderPausedPastItsLeaseCanNeitherDeleteTheNextKeyNorWrite() throws Exception {
        String sku = newSku("paused");
        createItem(sku, 10, 0);

        Lease paused = locks.acquire(sku, Duration.ofMillis(200), Duration.ofSeconds(1));
        suspendRenewal(paused); // stop-the-world: this holder neither renews nor runs
        Thread.sleep(400);

        Lease next = locks.acquire(sku, Duration.ofSeconds(5), Duration.ofSeconds(2));
        assertTrue(next.fence() > paused.fence(), "fencing tokens grow");
        assertEquals(FencedReservation.Result.RESERVED, reserve(sku, next.fence()));

        // The paused holder wakes up and carries on as if it still held the lock.
        assertEquals(FencedReservation.Result.FENCED_OUT, reserve(sku, paused.fence()));
        assertFalse(paused.release(), "the paused holder learns its lock was lost");
        assertTrue(paused.isLost());
        assertEquals(next.token, redis.value(String.class).get(RedisKeys.lock(sku)), "next holder's key intact");
        assertTrue(next.release());
        assertEquals(next.fence(), fenced.accepted(sku), "MySQL kept the newer token");
    }

    /** A batch claims its item with its grant's token only if no newer (or equal) one was accepted; no unit moves. */
    @Test
    void aBatchClaimsTheItemOnlyWithANewerToken() {
        String sku = newSku("claim");
        createItem(sku, 10, 0);
        assertTrue(claim(sku, 7));
        assertEquals(7L, fenced.accepted(sku));
        assertFalse(claim(sku, 7), "a token is accepted once");
        assertFalse(claim(sku, 3), "an older grant is fenced out");
        assertTrue(claim(sku, 8));
        assertEquals(8L, fenced.accepted(sku));
        assertTrue(claim(sku + "-missing", 1), "an unknown sku is not fenced out: its batch answers 404");
        assertCounters(sku, 10, 10, 0, 0);
    }

    /**
     * Concurrent buyers of one item in a pod share grants: the pod's lane takes everything queued under one grant of
     * the item's lock and decides it in one transaction. Exact counts, and fewer grants than orders.
     */
    @Test
    void concurrentPurchasesOfOneItemShareGrants() {
        String sku = newSku("shared-grants");
        createItem(sku, 60, 0);
        double grantsBefore = Shop.lockGrants(meters);
        assertEquals(Map.of(201, 60L, 409, 40L), Shop.burst(sku, 100, 50));
        assertCounters(sku, 60, 0, 60, 0);
        assertEquals(60, Db.orderCount(sku));
        double grants = Shop.lockGrants(meters) - grantsBefore;
        assertTrue(grants < 60, grants + " grants for 60 orders");
        assertTrue(meters.find("flashstock.lock.batch.size").summary().max() > 1, "batches of more than one");
    }

    /**
     * Two buyers that queued behind a batch which waited out its lock wait (5 s) form the next batch when that one
     * gives up, 2 s into their own decide-within (6 s); one of them runs it, the other waits for it. The batch's lock
     * wait must end before the waiting one stops waiting: a definite 503 (nothing changed) for both, not
     * outcome-unknown for a purchase that never reached MySQL.
     */
    @Test
    void buyersQueuedBehindALockWaitGetADefiniteAnswer() throws Exception {
        String sku = newSku("queued");
        createItem(sku, 10, 0);
        ExecutorService buyers = Executors.newFixedThreadPool(3);
        try (Lease elsewhere = locks.acquire(sku, Duration.ofSeconds(30), Duration.ofSeconds(1))) {
            Future<Response> first = buyers.submit(() -> purchase(sku, "first", 1, sku + "-first"));
            Thread.sleep(2_000);
            List<Future<Response>> queued = new ArrayList<>();
            for (String buyer : List.of("queued-1", "queued-2")) {
                queued.add(buyers.submit(() -> purchase(sku, buyer, 1, sku + "-" + buyer)));
            }
            Response firstAnswer = first.get();
            assertEquals(503, firstAnswer.statusCode(), firstAnswer.asString());
            for (Future<Response> answer : queued) {
                Response queuedAnswer = answer.get();
                assertEquals(503, queuedAnswer.statusCode(), queuedAnswer.asString());
                assertTrue(queuedAnswer.jsonPath().getString("type").endsWith("unavailable"),
                        "nothing reached MySQL, so the answer is definite: " + queuedAnswer.asString());
            }
        } finally {
            buyers.shutdownNow();
        }
        assertCounters(sku, 10, 10, 0, 0);
        assertEquals(0, Db.orderCount(sku));
    }

    @Test
    void renewalKeepsALongHoldAliveAndStopsAfterRelease() throws Exception {
        String sku = newSku("renew");
        Lease lease = locks.acquire(sku, Duration.ofMillis(300), Duration.ofSeconds(1));
        Thread.sleep(1200); // four leases long
        assertTrue(lease.isHeld(), "still held after four lease lengths");
        assertTrue(lease.isRenewing());
        assertEquals(lease.token, redis.value(String.class).get(RedisKeys.lock(sku)));
        long ttl = redis.key().pttl(RedisKeys.lock(sku));
        assertTrue(ttl > 0 && ttl <= 300, "lock key carries a TTL: " + ttl);

        assertTrue(lease.release());
        assertFalse(lease.isRenewing(), "renewal stopped on release");
        Thread.sleep(400);
        assertNull(redis.value(String.class).get(RedisKeys.lock(sku)), "a late renewal never re-creates the key");
    }

    @Test
    void redisRestartWhileHeldLeavesNoRenewalRunning() throws Exception {
        String sku = newSku("restart");
        Lease lease = locks.acquire(sku, Duration.ofMillis(300), Duration.ofSeconds(1));
        assertTrue(lease.isRenewing());

        // A restart without persistence of this class's own Redis: connections dropped, the key gone.
        OwnRedisResource.server().restart();

        long deadline = System.currentTimeMillis() + 5_000;
        while (lease.isRenewing() && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
        assertFalse(lease.isRenewing(), "renewal stopped once the lock was found lost");
        assertTrue(lease.isLost());
        assertFalse(lease.isHeld());
        assertFalse(lease.release(), "release reports the lock as lost");

        Lease after = locks.acquire(sku, Duration.ofSeconds(1), Duration.ofSeconds(1));
        assertTrue(after.release(), "the lock works again after the restart");
    }

    /**
     * Redis restarts empty under a running sale: its fencing counter starts again below the token MySQL last
     * accepted, so the first new grant is fenced out. The purchase must roll back, lift the counter and succeed under
     * a new grant; it used to answer 500 (a rolled-back commit) for as many purchases as the item had grants.
     */
    @Test
    void purchasesGoOnAfterRedisLostTheFencingCounter() {
        String sku = newSku("refence");
        createItem(sku, 20, 0);
        for (int i = 0; i < 5; i++) {
            purchase(sku, "before-" + i, 1, null).then().statusCode(201);
        }
        assertEquals(5L, fenced.accepted(sku));

        OwnRedisResource.server().restart(); // the counter is gone: the next grant carries token 1

        for (int i = 0; i < 5; i++) {
            purchase(sku, "after-" + i, 1, null).then().statusCode(201);
        }
        assertCounters(sku, 20, 10, 10, 0);
        assertEquals(10, Db.orderCount(sku));
        assertTrue(fenced.accepted(sku) > 5, "fencing went on above the old tokens");
    }

    /**
     * Raising the fencing counter after a stale grant fails like any lock call when Redis cannot answer: 503
     * {@code unavailable} (nothing was changed), never an unmapped error, which a purchase would have answered 500.
     */
    @Test
    void aFenceThatCannotBeRaisedIsUnavailable() {
        String sku = newSku("raise");
        OwnRedisResource.server().pause();
        try {
            assertThrows(UnavailableException.class, () -> locks.raiseFence(sku, 5));
        } finally {
            OwnRedisResource.server().resume();
        }
        assertEquals(5, locks.raiseFence(sku, 5));
    }

    /**
     * Stops the lease's renewal without releasing it, as a stop-the-world pause of its holder would: what fencing does
     * for a holder that outlived its lease. (The renewal is the lease's own, package-private, so no hook in Lease.)
     */
    private static void suspendRenewal(Lease lease) {
        ScheduledFuture<?> renewal = lease.renewal;
        if (renewal != null) {
            renewal.cancel(false);
        }
    }

    private boolean claim(String sku, long fence) {
        return QuarkusTransaction.requiringNew().call(() -> fenced.claim(sku, fence));
    }

    private FencedReservation.Result reserve(String sku, long fence) {
        return QuarkusTransaction.requiringNew().call(() -> fenced.reserve(sku, 1, fence, Timestamps.now()));
    }
}
