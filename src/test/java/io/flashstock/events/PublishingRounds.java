package io.flashstock.events;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32;

import io.flashstock.item.Ledger;
import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.Pause;

/**
 * The event publisher's rounds as MySQL shows them, for the fault tests that must strike while a round is under way,
 * and items the rounds split between pods. With the broker frozen, a round that locked its buckets and handed its
 * events to the producer waits for their acknowledgements holding those locks; nothing else the service does keeps a
 * transaction with row locks open for a second, so such a transaction in the test's database is a round in flight.
 */
final class PublishingRounds {

    private PublishingRounds() {
    }

    /**
     * The MySQL connection ids of the transactions in {@code db}'s database (other than {@code db}'s own) that hold
     * row locks and started more than a second ago.
     */
    static List<String> stuck(Connection db) {
        return Db.strings(db, "SELECT t.trx_mysql_thread_id FROM information_schema.INNODB_TRX t"
                + " JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id"
                + " WHERE p.DB = DATABASE() AND p.ID <> CONNECTION_ID() AND t.trx_rows_locked > 0"
                + " AND t.trx_started < NOW() - INTERVAL 1 SECOND");
    }

    /**
     * Waits (polling every 250 ms: faster polling of {@code INNODB_TRX} hid transactions here) until at least
     * {@code rounds} rounds are stuck, {@code millis} at most; answers their connection ids.
     */
    static List<String> awaitStuck(Connection db, int rounds, long millis) {
        long deadline = System.currentTimeMillis() + millis;
        List<String> stuck = stuck(db);
        while (stuck.size() < rounds && System.currentTimeMillis() < deadline) {
            Pause.sleep(250);
            stuck = stuck(db);
        }
        return stuck;
    }

    /** Which of {@code connections} MySQL still has (a killed client's are gone, their transactions rolled back). */
    static List<String> open(Connection db, List<String> connections) {
        List<String> open = new ArrayList<>(Db.strings(db, "SELECT ID FROM information_schema.PROCESSLIST"));
        open.retainAll(connections);
        return open;
    }

    /**
     * {@code count} skus starting with {@code prefix}, each in an event bucket of its own ({@code CRC32(sku) % 64}, as
     * {@code event_pending} computes it): with more buckets having work than one round locks (8), every pod's rounds
     * find some.
     */
    static List<String> inDistinctBuckets(String prefix, int count) {
        Set<Long> buckets = new LinkedHashSet<>();
        List<String> skus = new ArrayList<>();
        for (int i = 0; skus.size() < count; i++) {
            String sku = prefix + "-" + i;
            CRC32 crc = new CRC32();
            crc.update(sku.getBytes(StandardCharsets.US_ASCII));
            if (buckets.add(crc.getValue() % Ledger.EVENT_BUCKETS)) {
                skus.add(sku);
            }
        }
        return skus;
    }
}
