package io.flashstock.deduction;

import static io.flashstock.testsupport.Shop.buy;
import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.flashstock.deduction.Combiner.Result;
import io.flashstock.error.UnavailableException;
import io.flashstock.order.OrderStatus;
import io.flashstock.order.OrderView;
import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.LocalServersResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Test;

/**
 * The answers after a commit whose answer was lost, against MySQL: what the lookup sees, and what each purchase of a
 * failed batch is told.
 */
@QuarkusTest
@TestProfile(StrategyProfiles.DbOptimistic.class)
@WithTestResource(LocalServersResource.class)
class LostCommitTest {

    /**
     * The connection broke while MySQL was still committing: the lookup waits for that transaction instead of
     * reading the order as absent and answering "nothing was changed" for an order that lands a moment later.
     */
    @Test
    void theLookupWaitsForACommitStillLanding() throws Exception {
        String sku = newSku("landing");
        createItem(sku, 5, 0);
        String first = buy(sku, "first", 1);
        String landing = UUID.randomUUID().toString();
        try (Connection writer = Db.begin()) {
            assertEquals(1, Db.update(writer, "INSERT INTO purchase_order (id, sku, user_id, quantity, status,"
                    + " created_at, expires_at, updated_at) SELECT ?, sku, 'landing', 1, status, created_at, expires_at,"
                    + " updated_at FROM purchase_order WHERE id = ?", landing, first));
            CompletableFuture<Set<String>> lookup = CompletableFuture.supplyAsync(() -> StoredOrders.among(
                    List.of(landing), new IllegalStateException("connection reset"), System.nanoTime()));
            assertTrue(Db.awaitLockWait(5_000), "the lookup waits for the order's open transaction");
            assertFalse(lookup.isDone());
            writer.commit();
            assertEquals(Set.of(landing), lookup.get(5, TimeUnit.SECONDS));
        }
    }

    /**
     * A batch held a new order and, answered with it, a repeat of its Idempotency-Key (a client's retry that joined
     * the same batch). The commit's answer was lost and the order is not in MySQL: both are refused, the repeat too.
     * Before, the repeat kept its 201 for an order that did not exist. A replay of an order stored before stays.
     */
    @Test
    void aRepeatInsideAFailedBatchFallsWithItsOrder() {
        String sku = newSku("repeat");
        createItem(sku, 5, 0);
        String stored = buy(sku, "stored", 1);
        String lost = UUID.randomUUID().toString();
        OrderView order = new OrderView(lost, sku, "u", 1, OrderStatus.RESERVED, Instant.now(),
                Instant.now().plusSeconds(60), null);
        OrderView earlier = new OrderView(stored, sku, "stored", 1, OrderStatus.RESERVED, Instant.now(),
                Instant.now().plusSeconds(60), null);
        List<Result<PurchaseOutcome>> decided = List.of(Result.of(new PurchaseOutcome(order, false)),
                Result.of(new PurchaseOutcome(order, true)), Result.of(new PurchaseOutcome(earlier, true)));

        List<Result<PurchaseOutcome>> answers = LostPurchases.settleBatch(decided,
                new IllegalStateException("connection reset"), System.nanoTime());

        assertNull(answers.get(0).value());
        assertEquals(UnavailableException.class, answers.get(0).refusal().getClass());
        assertNull(answers.get(1).value(), "the repeat is refused with its order");
        assertSame(answers.get(0).refusal(), answers.get(1).refusal());
        assertSame(decided.get(2), answers.get(2), "a replay of an order stored before stands");
    }
}
