package io.flashstock.order;

import static io.flashstock.testsupport.Shop.assertCounters;
import static io.flashstock.testsupport.Shop.buy;
import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.LocalServersResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * Several pods expiring at once: four concurrent runs of the job (plus the scheduled one) over the same due
 * reservations return every unit exactly once.
 */
@QuarkusTest
@TestProfile(StrategyProfiles.DbOptimistic.class)
@WithTestResource(LocalServersResource.class)
class ReservationExpiryJobTest {

    @Inject
    ReservationExpiryJob job;

    @Test
    void concurrentRunsReturnEachReservationOnce() throws Exception {
        String sku = newSku("expiry-pods");
        createItem(sku, 60, 0);
        List<String> orders = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            orders.add(buy(sku, "late-" + i, 1));
        }
        orders.forEach(Db::makeDue);

        ExecutorService pods = Executors.newFixedThreadPool(4);
        CountDownLatch gate = new CountDownLatch(1);
        List<Future<Integer>> runs = new ArrayList<>();
        for (int pod = 0; pod < 4; pod++) {
            runs.add(pods.submit((Callable<Integer>) () -> {
                gate.await();
                return job.expireDue();
            }));
        }
        gate.countDown();
        for (Future<Integer> run : runs) {
            run.get();
        }
        pods.shutdown();
        job.expireDue(); // whatever the scheduled run had claimed is committed by the time this returns

        assertEquals(50, Db.count("SELECT COUNT(*) FROM purchase_order WHERE sku = ? AND status = 'EXPIRED'", sku));
        assertCounters(sku, 60, 60, 0, 0);
        assertEquals(0, job.expireDue(), "nothing left to expire");
        assertCounters(sku, 60, 60, 0, 0);
    }
}
