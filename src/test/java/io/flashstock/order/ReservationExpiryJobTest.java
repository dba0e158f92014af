package io.flashstock.order;

import static io.flashstock.testsupport.Api.given;
import static io.flashstock.testsupport.Shop.assertCounters;
import static io.flashstock.testsupport.Shop.buy;
import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
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
import io.flashstock.testsupport.Pause;
import io.micrometer.core.instrument.MeterRegistry;
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

    @Inject
    MeterRegistry meters;

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

    /**
     * The lines of a multi-item purchase expire together: while another transaction holds one of them (a confirm or
     * cancel of the purchase under way), the job leaves the whole purchase for a later run. Before, it expired the
     * other line, and a cancel then answered with one line CANCELLED and one EXPIRED.
     */
    @Test
    void aPurchaseExpiresWholeOrNotAtAll() throws Exception {
        String first = newSku("expiry-cart-a");
        String second = newSku("expiry-cart-b");
        createItem(first, 5, 0);
        createItem(second, 5, 0);
        String purchaseId = given().contentType("application/json").body("{\"userId\":\"cart\",\"lines\":["
                + "{\"sku\":\"" + first + "\",\"quantity\":1},{\"sku\":\"" + second + "\",\"quantity\":2}]}")
                .post("/purchases").then().statusCode(201).extract().path("purchaseId");
        String makeDue = "UPDATE purchase_order SET expires_at = UTC_TIMESTAMP(6) - INTERVAL 1 SECOND"
                + " WHERE purchase_id = ?";
        try (Connection confirm = Db.begin()) {
            // A confirm of the purchase has moved its first line and not committed yet; the second line falls due.
            assertEquals(1, Db.update(confirm, "UPDATE purchase_order SET status = 'CONFIRMED'"
                    + " WHERE purchase_id = ? AND sku = ?", purchaseId, first));
            assertEquals(1, Db.update(makeDue + " AND sku = ?", purchaseId, second));
            job.expireDue();
            assertEquals(1, Db.count("SELECT COUNT(*) FROM purchase_order WHERE purchase_id = ? AND sku = ?"
                    + " AND status = 'RESERVED'", purchaseId, second), "no line of a purchase whose other line is held");
            confirm.rollback();
        }

        Db.update(makeDue, purchaseId);
        job.expireDue(); // whatever the scheduled run had claimed is committed by the time this returns
        assertEquals(2, Db.count("SELECT COUNT(*) FROM purchase_order WHERE purchase_id = ? AND status = 'EXPIRED'",
                purchaseId));
        assertCounters(first, 5, 5, 0, 0);
        assertCounters(second, 5, 5, 0, 0);
    }

    /**
     * An order whose units MySQL refuses to take back (its item's counters changed by hand so that returning them
     * breaks a CHECK constraint) is set aside: it stays RESERVED and the orders behind it expire. Before, it failed
     * every batch that claimed it, and no order behind it ever expired.
     */
    @Test
    void anOrderMySqlWillNotTakeBackDoesNotStopTheOthers() {
        String broken = newSku("expiry-broken");
        String fine = newSku("expiry-fine");
        createItem(broken, 2, 0);
        createItem(fine, 3, 0);
        String stuck = buy(broken, "stuck", 1);
        List<String> behind = List.of(buy(fine, "behind-1", 1), buy(fine, "behind-2", 1));
        Db.update("UPDATE item SET available = available + reserved, reserved = 0 WHERE sku = ?", broken);
        try {
            Db.makeDue(stuck); // the oldest due order
            behind.forEach(Db::makeDue);
            job.expireDue();
            assertTrue(Pause.until(() -> Db.count("SELECT COUNT(*) FROM purchase_order WHERE sku = ? AND status ="
                    + " 'EXPIRED'", fine) == 2, 10_000), "the orders behind the refused one expired");
            assertCounters(fine, 3, 3, 0, 0);
            assertEquals(1, Db.count("SELECT COUNT(*) FROM purchase_order WHERE id = ? AND status = 'RESERVED'",
                    stuck), "the refused order stays RESERVED");
            assertEquals(1.0, meters.get("flashstock.orders.expiry.stuck").gauge().value());
            job.expireDue(); // set aside: no batch claims it again, nothing fails
            assertEquals(1, Db.count("SELECT COUNT(*) FROM purchase_order WHERE id = ? AND status = 'RESERVED'",
                    stuck));
        } finally {
            Db.update("UPDATE item SET available = available - 1, reserved = 1 WHERE sku = ?", broken);
        }
        given().post("/orders/" + stuck + "/cancel").then().statusCode(200); // repaired; nothing left reserved
        assertCounters(broken, 2, 2, 0, 0);
    }
}
