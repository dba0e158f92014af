package io.flashstock.events;

import static io.flashstock.events.SaleEventLog.count;
import static io.flashstock.testsupport.Api.given;
import static io.flashstock.testsupport.Shop.byStatus;
import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import io.flashstock.testsupport.Http;
import io.flashstock.testsupport.Http.Reply;
import io.flashstock.testsupport.Lane;
import io.flashstock.testsupport.OwnKafka;
import io.flashstock.testsupport.OwnKafkaResource;
import io.flashstock.testsupport.Json;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Test;

/**
 * Kafka killed for 30 seconds in the middle of a sale ({@link OwnKafkaResource}: a broker of the class's own, killed
 * with SIGKILL and started again on its data): the sale goes on and answers exactly as without Kafka, readiness stays
 * UP and shows the backlog, and once the broker is back every event arrives, none lost (a consumer deduplicating by
 * {@code id}). One subclass per strategy; full lane.
 */
abstract class KafkaOutage {

    private static final Duration OUTAGE = Duration.ofSeconds(30);

    @Test
    void aSaleWhileKafkaIsDownLosesNoEventAndWaitsForNothing() throws InterruptedException {
        OwnKafka kafka = OwnKafkaResource.server();
        String sku = newSku("kafka-down");
        int stock = Lane.size(50, 300);
        int buyers = stock + stock / 5;
        try (SaleEventLog log = SaleEventLog.open(kafka.bootstrapServers())) {
            createItem(sku, stock, 0);
            assertEquals(1, count(log.await(sku, e -> count(e, "item.created") == 1, Duration.ofSeconds(30)),
                    "item.created"), "published while the broker is up");

            kafka.stop();
            long down = System.nanoTime();
            List<Reply> replies = Http.concurrently(buyers, 32, i -> Http.post("/items/" + sku + "/purchases",
                    "{\"userId\":\"kd-" + i + "\",\"quantity\":1}").build());
            assertEquals(Map.of(201, (long) stock, 409, (long) (buyers - stock)), byStatus(replies),
                    "the sale answers as without Kafka");
            Set<String> sold = replies.stream().filter(r -> r.status() == 201)
                    .map(r -> Json.text(r.body(), "orderId")).collect(Collectors.toSet());
            awaitBacklog();
            long left = OUTAGE.toNanos() - (System.nanoTime() - down);
            if (left > 0) {
                Thread.sleep(left / 1_000_000);
            }
            given().get("/q/health/ready").then().statusCode(200);
            kafka.launch();

            List<SaleEventLog.Received> events = log.await(sku, e -> count(e, "order.reserved") >= stock
                    && count(e, "item.sold-out") >= 1, Duration.ofSeconds(90));
            assertEquals(sold, events.stream().filter(e -> e.type().equals("order.reserved"))
                    .map(SaleEventLog.Received::subject).collect(Collectors.toSet()), "every 201's event arrived");
            assertEquals(stock, count(events, "order.reserved"), "one each, after deduplication");
            assertEquals(1, count(events, "item.sold-out"));
            System.out.printf("[fault] %s Kafka down %d s: %d events after it came back, %d duplicates dropped%n",
                    getClass().getSimpleName(), OUTAGE.toSeconds(), events.size(), log.duplicates());
        }
    }

    /** The readiness data shows the movements waiting (measured every 5 s), while readiness stays UP. */
    private static void awaitBacklog() throws InterruptedException {
        for (int i = 0; i < 80; i++) {
            String body = given().get("/q/health/ready").then().statusCode(200).extract().asString();
            List<Map<String, Object>> checks = JsonPath.from(body).getList("checks");
            Object backlog = checks.stream().filter(c -> "sale-events".equals(c.get("name"))).findFirst()
                    .map(c -> ((Map<?, ?>) c.get("data")).get("backlog")).orElse(null);
            if (backlog instanceof Number n && n.longValue() > 0) {
                return;
            }
            Thread.sleep(250);
        }
        fail("the readiness data never showed a backlog");
    }
}
