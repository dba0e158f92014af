package io.flashstock.faults;

import static io.flashstock.testsupport.Shop.byStatus;
import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import io.flashstock.redis.RedisKeys;
import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.FaultyMySqlResource;
import io.flashstock.testsupport.Http.Reply;
import io.flashstock.testsupport.Http;
import io.flashstock.testsupport.Lane;
import io.flashstock.testsupport.Settlement;
import io.flashstock.testsupport.Tokens;
import io.quarkus.redis.datasource.RedisDataSource;
import io.flashstock.testsupport.Json;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * Every connection from the service to MySQL cut in the middle of a sale, right after the answers had been slowed
 * down so that statements MySQL ran, commits included, were still on their way back (NetCrusher between the service
 * and MySQL, {@link FaultyMySqlResource}): the "commit whose answer is lost" case. One subclass per strategy; the
 * checks are {@link FaultySale#verify}'s.
 */
abstract class MySqlCut {

    @Inject
    RedisDataSource redis;

    /** Whether the strategy keeps the item's counters in Redis (redis-lua): they must equal MySQL's afterwards. */
    boolean keepsHotStock() {
        return false;
    }

    @Test
    void aCutMidSaleNeverLosesNorInventsAnOrder() throws Exception {
        String sku = newSku("cut");
        int stock = Lane.size(300, 1000);
        FaultySale.Result result = FaultySale.sell(sku, stock, Lane.size(450, 1500), () -> {
            FaultyMySqlResource.delay(300);
            Thread.sleep(1_000);
            FaultyMySqlResource.proxy().close(); // every connection dropped, new ones refused for three seconds
            FaultyMySqlResource.delay(0);
            Thread.sleep(3_000);
            FaultyMySqlResource.proxy().open();
        });
        System.out.printf("[fault] %s MySQL cut: %s, slowest %d ms%n", getClass().getSimpleName(), result.statuses(),
                result.slowestMillis());
        FaultySale.verify(sku, stock, result);
        if (keepsHotStock()) {
            FaultySale.awaitHotStockAgrees(sku, () -> FaultySale.counters(redis.hash(String.class)
                    .hmget(RedisKeys.stock(sku), FaultySale.COUNTERS)));
        }
    }

    /**
     * A cut while orders are confirmed, cancelled and extended and the item is restocked (with Idempotency-Keys): a 200
     * means the change happened once, a 503 {@code unavailable} that it did not, and an {@code outcome-unknown} is
     * settled by repeating the request (the same Idempotency-Key for a restock). Before, a confirm or restock whose
     * commit answer was lost got 503 "try again", and a retried restock added its units twice; an extension whose
     * commit answer was lost got 503 "nothing was changed" though its order had been extended.
     */
    @Test
    void aCutDuringConfirmsCancelsAndRestocksLeavesOnlyDefiniteAnswers() throws Exception {
        String sku = newSku("cut-moves");
        int stock = 2000;
        int orders = Lane.size(300, 600);
        createItem(sku, stock, 0);
        List<Reply> bought = Http.concurrently(orders, 32, i -> Http.post("/items/" + sku + "/purchases",
                "{\"userId\":\"m-" + i + "\",\"quantity\":1}").build());
        List<String> ids = new ArrayList<>();
        for (Reply reply : bought) {
            assertEquals(201, reply.status(), reply.body());
            ids.add(Json.text(reply.body(), "orderId"));
        }
        List<HttpRequest> calls = new ArrayList<>();
        for (int i = 0; i < orders; i++) {
            calls.add(i % 3 == 2 ? extend(ids.get(i)) : move(ids.get(i), i % 3 == 0 ? "confirm" : "cancel"));
            if (i % 2 == 0) {
                calls.add(restock(sku, i));
            }
        }
        CompletableFuture<List<Reply>> storm = CompletableFuture.supplyAsync(
                () -> Http.concurrently(calls.size(), 32, calls::get));
        Thread.sleep(200);
        FaultyMySqlResource.delay(300);
        Thread.sleep(1_000);
        FaultyMySqlResource.proxy().close();
        FaultyMySqlResource.delay(0);
        Thread.sleep(3_000);
        FaultyMySqlResource.proxy().open();
        List<Reply> replies = storm.get();

        Map<Integer, Long> statuses = byStatus(replies);
        Set<String> moved = new HashSet<>();
        Set<String> extended = new HashSet<>();
        Set<String> notExtended = new HashSet<>();
        int restocked = 0;
        for (int i = 0; i < calls.size(); i++) {
            HttpRequest call = calls.get(i);
            Reply reply = replies.get(i);
            assertTrue(reply.status() == 200 || reply.status() == 503, reply.status() + " " + reply.body());
            if (reply.body().contains("outcome-unknown")) {
                reply = untilDefinite(call);
            }
            boolean done = reply.status() == 200;
            if (call.uri().getPath().endsWith("/restock")) {
                restocked += done ? 1 : 0;
            } else if (call.uri().getPath().endsWith("/extend")) {
                (done ? extended : notExtended).add(call.uri().getPath().split("/")[2]);
            } else {
                if (done) {
                    moved.add(call.uri().getPath().split("/")[2]);
                }
            }
        }
        for (String id : ids) {
            String status = statusOf(id);
            if (extended.contains(id) || notExtended.contains(id)) {
                assertEquals("RESERVED", status, id + " was only extended");
                long later = Db.count("SELECT COUNT(*) FROM purchase_order WHERE id = ?"
                        + " AND expires_at > created_at + INTERVAL 30 MINUTE", id);
                assertEquals(extended.contains(id) ? 1 : 0, later, id + (extended.contains(id)
                        ? " answered 200 but was not extended" : " answered 503 unavailable but was extended: ")
                        + statuses);
            } else if (moved.contains(id)) {
                assertTrue(!"RESERVED".equals(status), id + " answered 200 but is " + status);
            } else {
                assertEquals("RESERVED", status, id + " answered 503 unavailable but changed: " + statuses);
            }
        }
        assertEquals(restocked, Db.count("SELECT COUNT(*) FROM restock WHERE sku = ?", sku), "restocks: " + statuses);
        Map<String, Long> row = Db.item(sku);
        assertEquals(stock + restocked, row.get("stock"), "each restock that answered 200 added its units once");
        long reserved = Db.count("SELECT COUNT(*) FROM purchase_order WHERE sku = ? AND status = 'RESERVED'", sku);
        long sold = Db.count("SELECT COUNT(*) FROM purchase_order WHERE sku = ? AND status = 'CONFIRMED'", sku);
        assertEquals(reserved, row.get("reserved"), "reserved counter == RESERVED orders: " + row);
        assertEquals(sold, row.get("sold"), "sold counter == CONFIRMED orders: " + row);
        assertEquals(row.get("stock") - reserved - sold, row.get("available"), "available: " + row);
        System.out.printf("[fault] %s MySQL cut during confirm/cancel/extend/restock: %s%n", getClass().getSimpleName(),
                statuses);
        if (keepsHotStock()) {
            FaultySale.awaitHotStockAgrees(sku, () -> FaultySale.counters(redis.hash(String.class)
                    .hmget(RedisKeys.stock(sku), FaultySale.COUNTERS)));
        }
        // Every confirm, cancel and restock whose answer was lost wrote its movement with its change, or neither.
        Settlement.assertConsistent(sku);
    }

    private static HttpRequest move(String orderId, String verb) {
        return HttpRequest.newBuilder(Http.uri("/orders/" + orderId + "/" + verb)).timeout(Duration.ofSeconds(30))
                .header("Authorization", Tokens.staff()).POST(HttpRequest.BodyPublishers.noBody()).build();
    }

    private static HttpRequest extend(String orderId) {
        return Http.post("/orders/" + orderId + "/extend", "{\"seconds\":3600}").timeout(Duration.ofSeconds(30))
                .build();
    }

    private static HttpRequest restock(String sku, int i) {
        return Http.post("/items/" + sku + "/restock", "{\"quantity\":1}")
                .header("Idempotency-Key", sku + "-restock-" + i).build();
    }

    /** Repeats an idempotent request until it has a definite answer. */
    private static Reply untilDefinite(HttpRequest call) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 20_000;
        Reply reply = Http.send(call);
        while (reply.status() == 503 && System.currentTimeMillis() < deadline) {
            Thread.sleep(200);
            reply = Http.send(call);
        }
        assertEquals(200, reply.status(), reply.body());
        return reply;
    }

    private static String statusOf(String orderId) {
        return Db.count("SELECT COUNT(*) FROM purchase_order WHERE id = ? AND status = 'RESERVED'", orderId) == 1
                ? "RESERVED" : "MOVED";
    }
}
