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
        String ran = OrderIds.next();
        assertEquals(PurchaseReply.OK, hotStock.purchase(command, ran, now, now.plusSeconds(60)).reply());
        assertEquals("8", hot(sku).get("available"));
        assertTrue(stream.abandon(sku, ran, null));
        assertEquals("10", hot(sku).get("available"));
        assertEquals("0", hot(sku).get("reserved"));

        // It was still queued when the caller gave up: it never runs.
        String queued = OrderIds.next();
        assertFalse(stream.abandon(sku, queued, null));
        assertEquals(PurchaseReply.VOID, hotStock.purchase(command, queued, now, now.plusSeconds(60)).reply());
        assertEquals("10", hot(sku).get("available"));
        assertEquals(0, redis.stream(String.class).xlen(RedisKeys.orders(sku)));
    }
}
