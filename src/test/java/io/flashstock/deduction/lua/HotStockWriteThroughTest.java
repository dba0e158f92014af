package io.flashstock.deduction.lua;

import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;

import io.flashstock.deduction.PurchaseCommand;
import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.deduction.lua.HotStock;
import io.flashstock.deduction.lua.PendingStream;
import io.flashstock.order.OrderIds;
import io.flashstock.redis.RedisKeys;
import io.flashstock.testsupport.OwnRedisResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

@QuarkusTest
@TestProfile(StrategyProfiles.RedisLuaWriteThrough.class)
@WithTestResource(OwnRedisResource.class)
class HotStockWriteThroughTest extends HotStockResilience {

    @Inject
    HotStock hotStock;

    @Inject
    PodIdentity pod;

    @Inject
    PendingStream stream;

    @Override
    boolean everyAcknowledgedOrderSurvivesDataLoss() {
        return true;
    }

    @Test
    void aPurchaseGivenUpOnHasNoEffectWhetherItRanOrNot() {
        String sku = newSku("void");
        createItem(sku, 10, 0);
        Instant now = Instant.now();
        PurchaseCommand command = new PurchaseCommand(sku, "late", 2, null, null);

        // It ran before the caller gave up: taken back.
        String ran = OrderIds.next(sku);
        assertEquals(PurchaseReply.OK, hotStock.purchase(command, ran, now, now.plusSeconds(60)).reply());
        assertEquals("8", hot(sku).get("available"));
        assertEquals(PendingStream.Undo.UNDONE, stream.abandon(sku, ran, null, pod.id()));
        assertEquals("10", hot(sku).get("available"));
        assertEquals("0", hot(sku).get("reserved"));

        // It was still queued when the caller gave up: it never runs.
        String queued = OrderIds.next(sku);
        assertEquals(PendingStream.Undo.NEVER_RAN, stream.abandon(sku, queued, null, pod.id()));
        assertEquals(PurchaseReply.VOID, hotStock.purchase(command, queued, now, now.plusSeconds(60)).reply());
        assertEquals("10", hot(sku).get("available"));
        assertEquals(0, redis.stream(String.class).xlen(RedisKeys.orders(sku)));
    }

    /**
     * An entry one consumer of the stream holds is never taken back by another: the request that took it at purchase
     * time (write-through) or a relay that took it over persists it. Before the consumer group, an undo could delete
     * an entry a relay had just committed, returning units that MySQL had sold.
     */
    @Test
    void anEntryHeldByOneConsumerIsNotTakenBackByAnother() {
        String sku = newSku("held");
        createItem(sku, 10, 0);
        Instant now = Instant.now();
        PurchaseCommand command = new PurchaseCommand(sku, "held", 1, null, null);
        String orderId = OrderIds.next(sku);
        assertEquals(PurchaseReply.OK, hotStock.purchase(command, orderId, now, now.plusSeconds(60)).reply());

        // A relay takes the idle entry over (as after claim-after), then the request tries to give up on it.
        assertEquals(1, stream.claimIdle(sku, "other-pod/relay", 0, 10).size());
        assertEquals(PendingStream.Undo.HELD_ELSEWHERE, stream.abandon(sku, orderId, null, pod.id()));
        assertEquals("9", hot(sku).get("available"), "the units stay sold");
        assertEquals(1, redis.stream(String.class).xlen(RedisKeys.orders(sku)), "the entry stays for the relay");
        // The relay that holds it may take it back (MySQL refused it, say).
        PendingOrder entry = stream.readHeld(sku, "other-pod/relay", 10).get(0);
        assertEquals(PendingStream.Undo.UNDONE, stream.undo(entry, true, "other-pod/relay"));
        assertEquals("10", hot(sku).get("available"));
        assertEquals(0, redis.stream(String.class).xlen(RedisKeys.orders(sku)));
    }
}
