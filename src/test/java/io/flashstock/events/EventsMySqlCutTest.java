package io.flashstock.events;

import static io.flashstock.testsupport.Shop.byStatus;
import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.FaultyMySqlKafkaResource;
import io.flashstock.testsupport.FaultyMySqlResource;
import io.flashstock.testsupport.Http;
import io.flashstock.testsupport.Http.Reply;
import io.flashstock.testsupport.Lane;
import io.flashstock.testsupport.OwnKafka;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Every connection from the service to MySQL cut while a sale runs and a publishing round is under way (a NetCrusher
 * proxy between them, {@link FaultyMySqlKafkaResource}; a database, a Kafka broker and a Redis of the class's own;
 * db-optimistic, where every purchase is a MySQL transaction). Full lane.
 */
@Tag(Lane.FULL_TAG)
@QuarkusTest
@TestProfile(StrategyProfiles.DbOptimistic.class)
@WithTestResource(FaultyMySqlKafkaResource.class)
class EventsMySqlCutTest {

    private static final Duration WITHIN = Duration.ofSeconds(45);

    /**
     * 8 items (each in a bucket of its own) of 50 units, 600 buyers with Idempotency-Keys, in thirds. After the first
     * third the broker is frozen, so that a publishing round waits for its acknowledgements holding its buckets
     * (MySQL shows it), and the second third buys while every packet to and from MySQL is delayed by 300 ms for a
     * second and then every connection is cut, the round's included, new ones refused for 3 s: purchases whose commit
     * answer is lost, and a round whose events the broker, resumed, acknowledges while its cursors cannot move. The
     * last third buys after the cut heals. No event arrives whose movement MySQL does not hold (a purchase whose
     * answer was lost is told only if it committed); every committed movement's event arrives, exactly the ledger's,
     * in ledger order; the cut round's events come again with their ids (duplicates, at least one); every 201 has its
     * one {@code order.reserved}.
     */
    @Test
    void aCutWhilePublishingTellsOnlyWhatCommittedAndLosesNothing() throws Exception {
        List<String> skus = PublishingRounds.inDistinctBuckets(newSku("ev-cut"), 8);
        int stock = 50;
        int buyers = stock * skus.size() * 3 / 2;
        String jdbcUrl = FaultyMySqlKafkaResource.jdbcUrl();
        OwnKafka kafka = FaultyMySqlKafkaResource.kafka();
        try (SaleEventLog log = SaleEventLog.open(kafka.bootstrapServers()); Connection db = Db.connect(jdbcUrl)) {
            skus.forEach(sku -> createItem(sku, stock, 0));
            SaleInThirds sale = new SaleInThirds(skus, buyers, (i, sku) -> Http.post("/items/" + sku + "/purchases",
                    "{\"userId\":\"c-" + i + "\",\"quantity\":1}").header("Idempotency-Key", sku + "-" + i).build());
            sale.awaitStored(db, stock * skus.size() / 10);

            List<String> rounds;
            try {
                rounds = sale.openSecondWithBrokerFrozen(kafka, db, 1);
                FaultyMySqlResource.delay(300);
                Thread.sleep(1_000); // statements and commits on their way when the cut comes
                FaultyMySqlResource.proxy().close();
            } finally {
                FaultyMySqlResource.delay(0);
                kafka.resume();
            }
            try {
                Thread.sleep(3_000); // the outage
            } finally {
                FaultyMySqlResource.proxy().open();
                sale.openLast();
            }
            List<Reply> replies = sale.replies();
            Map<String, Set<String>> sold = sale.sold();
            long answered = sold.values().stream().mapToLong(Set::size).sum();

            assertTrue(log.awaitReserved(sold, WITHIN), "every 201's order.reserved within " + WITHIN);
            for (String sku : skus) {
                List<String> reserved = log.subjects(sku, "order.reserved");
                assertEquals(reserved.size(), new HashSet<>(reserved).size(), "one order.reserved per order of " + sku);
            }
            LedgerEvents.Delivered delivered = LedgerEvents.awaitDelivered(log, jdbcUrl, skus, WITHIN);
            long stored = sale.stored(db);
            System.out.printf("[events] MySQL cut while publishing (%d round held buckets): %s; %d orders stored for %d"
                    + " answered 201; %d events delivered, %d duplicates dropped%n", rounds.size(), byStatus(replies),
                    stored, answered, delivered.events(), delivered.duplicates());
            assertTrue(delivered.duplicates() > 0, "the cut round's events, acknowledged but not recorded, came again");
        }
    }
}
