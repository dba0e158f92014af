package io.flashstock.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.Pause;

/**
 * The events the movement ledger in MySQL says the topic must carry (docs/events.md), for the fault tests, which
 * check delivery against what MySQL committed rather than against what the service answered: one event per movement
 * (none for a {@code correction}) with the movement's id, then {@code <id>.sold-out} when the movement took the
 * item's last available unit, or {@code <id>.units-back} when units came back to an item that had none. An item's
 * events must first arrive in that order.
 */
final class LedgerEvents {

    /** What {@link #awaitDelivered} saw: distinct events (equal to the ledger's) and redeliveries dropped. */
    record Delivered(int events, int duplicates) {
    }

    private LedgerEvents() {
    }

    /** The ids of the events of {@code sku}'s committed movements, in the order they must arrive. */
    static List<String> expected(Connection db, String sku) {
        List<String> ids = new ArrayList<>();
        try (PreparedStatement s = db.prepareStatement("SELECT id, kind, available_delta FROM movement WHERE sku = ?"
                + " ORDER BY id")) {
            s.setString(1, sku);
            try (ResultSet rs = s.executeQuery()) {
                long available = 0;
                while (rs.next()) {
                    long id = rs.getLong(1);
                    String kind = rs.getString(2);
                    long before = available;
                    available += rs.getLong(3);
                    if (!"correction".equals(kind)) {
                        ids.add(Long.toString(id));
                    }
                    if (before > 0 && available == 0) {
                        ids.add(id + ".sold-out");
                    } else if (before == 0 && available > 0 && !"created".equals(kind)) {
                        ids.add(id + ".units-back");
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return ids;
    }

    /**
     * Reads the topic until every committed movement of {@code skus} in the database at {@code jdbcUrl} has its events
     * ({@code within} at most), failing at once when an event arrives that the ledger does not hold (published for a
     * change MySQL did not commit) or arrives before an earlier event of its item; at the end, the received events of
     * each item equal the ledger's, in order, and every redelivery repeated its event.
     */
    static Delivered awaitDelivered(SaleEventLog log, String jdbcUrl, Collection<String> skus, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        try (Connection db = Db.connect(jdbcUrl)) {
            while (true) {
                // The ledger is read after the events compared with it arrived: a published event's movement is in it.
                Map<String, List<String>> ledger = new LinkedHashMap<>();
                skus.forEach(sku -> ledger.put(sku, expected(db, sku)));
                boolean all = true;
                for (String sku : skus) {
                    List<String> got = log.ids(sku);
                    assertPublishedInLedgerOrder(sku, got, ledger.get(sku));
                    all &= got.equals(ledger.get(sku));
                }
                if (all || System.nanoTime() > deadline) {
                    for (String sku : skus) {
                        List<String> missing = new ArrayList<>(ledger.get(sku));
                        missing.removeAll(log.ids(sku));
                        assertEquals(ledger.get(sku), log.ids(sku), "the events of " + sku + " after " + within
                                + "; never arrived: " + missing);
                    }
                    assertEquals(List.of(), log.conflictingDuplicates(), "a redelivered id was another event");
                    return new Delivered(ledger.values().stream().mapToInt(List::size).sum(), log.duplicates());
                }
                log.poll();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Waits until the movements of {@code skus} have not changed for 2.5 s (30 s at most): a relay that takes over a
     * dead pod's orders a while later (claim-after) must not write movements after the test compared the ledger with
     * the topic.
     */
    static void awaitQuiet(Connection db, List<String> skus) {
        long deadline = System.currentTimeMillis() + 30_000;
        long movements = -1;
        long unchangedSince = 0;
        while (System.currentTimeMillis() < deadline) {
            long now = Db.count(db, "SELECT COUNT(*) FROM movement WHERE sku IN ("
                    + String.join(",", Collections.nCopies(skus.size(), "?")) + ")", skus.toArray());
            if (now != movements) {
                movements = now;
                unchangedSince = System.currentTimeMillis();
            } else if (System.currentTimeMillis() - unchangedSince >= 2_500) {
                return;
            }
            Pause.sleep(250);
        }
        fail("the ledger of " + skus + " still changed after 30 s");
    }

    private static void assertPublishedInLedgerOrder(String sku, List<String> got, List<String> expected) {
        Map<String, Integer> position = new HashMap<>();
        for (int i = 0; i < expected.size(); i++) {
            position.put(expected.get(i), i);
        }
        int last = -1;
        for (String id : got) {
            Integer at = position.get(id);
            if (at == null) {
                fail("event " + id + " of " + sku + " was published, but MySQL holds no such movement: a change that"
                        + " did not commit was told");
            }
            if (at < last) {
                fail("event " + id + " of " + sku + " arrived after " + expected.get(last) + ", a later movement's");
            }
            last = at;
        }
    }
}
