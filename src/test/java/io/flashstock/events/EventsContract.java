package io.flashstock.events;

import static io.flashstock.events.SaleEventLog.count;
import static io.flashstock.testsupport.Api.given;
import static io.flashstock.testsupport.Shop.buy;
import static io.flashstock.testsupport.Shop.byStatus;
import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.Http;
import io.flashstock.testsupport.Http.Reply;
import io.flashstock.testsupport.Lane;
import io.flashstock.testsupport.LocalKafkaResource;
import io.flashstock.testsupport.Json;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The sale events contract, run against each strategy with a real broker ({@link LocalKafkaResource}) and a test
 * consumer that deduplicates by {@code id}: every 201 has exactly one {@code order.reserved} and no refusal has one;
 * a sell-out is told once; confirm, cancel, expiry and extension each tell their event after the order's
 * {@code order.reserved}; units coming back to a sold-out item are told.
 */
public abstract class EventsContract {

    private static final Duration WITHIN = Duration.ofSeconds(30);
    private static SaleEventLog log;

    @BeforeAll
    static void openLog() {
        log = SaleEventLog.open(LocalKafkaResource.bootstrapServers());
    }

    @AfterAll
    static void closeLog() {
        log.close();
    }

    @Test
    void everyPurchaseAnsweredWithA201HasExactlyOneReservedEvent() {
        String sku = newSku("ev-sale");
        int stock = Lane.size(30, 300);
        int buyers = stock + stock / 2;
        createItem(sku, stock, 0);
        List<Reply> replies = Http.concurrently(buyers, 32, i -> Http.post("/items/" + sku + "/purchases",
                "{\"userId\":\"ev-" + i + "\",\"quantity\":1}").build());
        assertEquals(Map.of(201, (long) stock, 409, (long) (buyers - stock)), byStatus(replies), "answers");
        Set<String> sold = replies.stream().filter(r -> r.status() == 201)
                .map(r -> Json.text(r.body(), "orderId")).collect(Collectors.toSet());

        List<SaleEventLog.Received> events = log.await(sku, e -> count(e, "order.reserved") >= stock
                && count(e, "item.sold-out") >= 1, WITHIN);
        Set<String> reserved = events.stream().filter(e -> e.type().equals("order.reserved"))
                .map(SaleEventLog.Received::subject).collect(Collectors.toSet());
        assertEquals(sold, reserved, "one order.reserved per 201, none for a refusal");
        assertEquals(stock, count(events, "order.reserved"), "no second order.reserved of an order");
        assertEquals(1, count(events, "item.sold-out"), "one sell-out");
        assertEquals("item.created", events.get(0).type(), "the item's first event");
        assertEquals("item.sold-out", events.get(events.size() - 1).type(), "told after the last reservation");
        for (SaleEventLog.Received event : events) {
            assertEquals("1.0", Json.text(event.event(), "specversion"));
            assertEquals(sku, event.key(), "keyed by sku");
        }
    }

    @Test
    void eachChangeOfAnOrderTellsItsEventAfterItsReservation() throws InterruptedException {
        String sku = newSku("ev-moves");
        createItem(sku, 4, 0);
        String confirmed = buy(sku, "mv-1", 1);
        String cancelled = buy(sku, "mv-2", 1);
        String extended = buy(sku, "mv-3", 1);
        String expired = buy(sku, "mv-4", 1);
        for (String order : List.of(confirmed, cancelled, extended, expired)) {
            awaitInMySql(order); // write-behind: the ledger (and the sell-out it tells) follows the relay's order
        }
        given().post("/orders/" + cancelled + "/cancel").then().statusCode(200);
        given().post("/orders/" + confirmed + "/confirm").then().statusCode(200);
        given().contentType("application/json").body("{\"seconds\":3600}").post("/orders/" + extended + "/extend")
                .then().statusCode(200);
        Db.expireIn(expired, 1);

        List<SaleEventLog.Received> events = log.await(sku, e -> count(e, "order.expired") >= 1
                && count(e, "order.extended") >= 1 && count(e, "order.confirmed") >= 1, WITHIN);
        assertFollows(events, confirmed, "order.confirmed");
        assertFollows(events, cancelled, "order.cancelled");
        assertFollows(events, extended, "order.extended");
        assertFollows(events, expired, "order.expired");
        assertEquals(1, count(events, "item.sold-out"), "sold out once all four were reserved");
        assertEquals(1, count(events, "item.units-back"), "the cancel gave the sold-out item a unit back (the expiry"
                + " then adds one to an item that has one)");
        assertEquals("mv-3", events.stream().filter(e -> e.type().equals("order.extended")).findFirst()
                .orElseThrow().event().path("data").path("userId").asText());
    }

    private static void assertFollows(List<SaleEventLog.Received> events, String orderId, String type) {
        List<String> types = events.stream().filter(e -> orderId.equals(e.subject())).map(SaleEventLog.Received::type)
                .toList();
        assertEquals(List.of("order.reserved", type), types, "the events of " + orderId);
    }

    /** Write-behind stores an order a moment after its 201; the expiry test moves the stored row's time. */
    private static void awaitInMySql(String orderId) throws InterruptedException {
        for (int i = 0; i < 100 && Db.count("SELECT COUNT(*) FROM purchase_order WHERE id = ?", orderId) == 0; i++) {
            Thread.sleep(100);
        }
        assertTrue(Db.count("SELECT COUNT(*) FROM purchase_order WHERE id = ?", orderId) == 1, orderId + " stored");
    }
}
