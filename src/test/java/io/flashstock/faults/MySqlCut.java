package io.flashstock.faults;

import static io.flashstock.testsupport.Shop.byStatus;
import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.FaultyMySqlResource;
import io.flashstock.testsupport.Http;
import io.flashstock.testsupport.Http.Reply;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Test;

/**
 * Every connection from the service to MySQL cut in the middle of a sale, right after the answers had been slowed
 * down so that statements MySQL ran, commits included, were still on their way back (NetCrusher between the service
 * and MySQL, {@link FaultyMySqlResource}). One subclass per strategy. Whatever happens: no 500; every 201 has its
 * order; an order exists only for a 201 or for an {@code outcome-unknown} answer, whose retry with the same
 * Idempotency-Key returns it; MySQL's counters match its orders and never go past the stock.
 */
abstract class MySqlCut {

    @Test
    void aCutMidSaleNeverLosesNorInventsAnOrder() throws Exception {
        String sku = newSku("cut");
        int stock = 1000;
        int buyers = 1500;
        createItem(sku, stock, 0);

        CompletableFuture<List<Reply>> storm = CompletableFuture.supplyAsync(() -> Http.concurrently(buyers, 32,
                i -> purchase(sku, i)));
        long deadline = System.currentTimeMillis() + 20_000;
        while (Db.orderCount(sku) < stock / 10 && System.currentTimeMillis() < deadline) {
            Thread.sleep(5);
        }
        FaultyMySqlResource.delay(300);
        Thread.sleep(1_000);
        FaultyMySqlResource.proxy().close(); // every connection dropped, new ones refused for three seconds
        FaultyMySqlResource.delay(0);
        Thread.sleep(3_000);
        FaultyMySqlResource.proxy().open();
        List<Reply> replies = storm.get();

        Map<Integer, Long> statuses = byStatus(replies);
        assertFalse(statuses.containsKey(500), "no 500: " + statuses);
        Set<String> acknowledged = new HashSet<>();
        List<Integer> uncertain = new ArrayList<>();
        for (int i = 0; i < replies.size(); i++) {
            Reply reply = replies.get(i);
            assertTrue(reply.status() == 201 || reply.status() == 409 || reply.status() == 503,
                    reply.status() + " " + reply.body());
            if (reply.status() == 201) {
                acknowledged.add(JsonPath.from(reply.body()).getString("orderId"));
            } else if (reply.body().contains("outcome-unknown")) {
                uncertain.add(i);
            }
        }
        for (int i : uncertain) { // the retry tells the truth: the first order, or a fresh decision
            acknowledged.add(retryUntilDecided(purchase(sku, i)));
        }
        Set<String> stored = awaitSettled(sku);
        assertTrue(stored.containsAll(acknowledged), "every 201 has its order: " + statuses);
        Set<String> phantoms = new HashSet<>(stored);
        phantoms.removeAll(acknowledged);
        assertEquals(Set.of(), phantoms, "orders nobody was told about: " + statuses + ", " + uncertain.size()
                + " outcome-unknown");
        assertTrue(stored.size() <= stock, "no oversell");
        Map<String, Long> row = Db.item(sku);
        assertEquals(stock - stored.size(), row.get("available"), "MySQL's counters match its orders: " + row);
    }

    /** Retries a purchase with its Idempotency-Key until it has a definite answer; the order id of a 201, or null. */
    private static String retryUntilDecided(HttpRequest request) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 20_000;
        while (true) {
            Reply reply = Http.send(request);
            if (reply.status() == 201) {
                return JsonPath.from(reply.body()).getString("orderId");
            }
            boolean pending = reply.body().contains("outcome-unknown") || reply.body().contains("request-in-progress")
                    || reply.status() == 503;
            if (!pending || System.currentTimeMillis() > deadline) {
                return null;
            }
            Thread.sleep(200);
        }
    }

    /** The item's orders once nothing changes any more (pending orders of redis-lua reach MySQL by the relay). */
    private static Set<String> awaitSettled(String sku) throws InterruptedException {
        Set<String> previous = null;
        long deadline = System.currentTimeMillis() + 20_000;
        while (System.currentTimeMillis() < deadline) {
            Set<String> now = new HashSet<>(Db.orderIds(sku));
            if (now.equals(previous)) {
                return now;
            }
            previous = now;
            Thread.sleep(2_500);
        }
        return previous;
    }

    private static HttpRequest purchase(String sku, int buyer) {
        return Http.post("/items/" + sku + "/purchases", "{\"userId\":\"b-" + buyer + "\",\"quantity\":1}")
                .header("Idempotency-Key", sku + "-" + buyer).build();
    }
}
