package io.flashstock.testsupport;

import static io.flashstock.testsupport.Api.given;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.restassured.path.json.JsonPath;

/**
 * The settlement report ({@code GET /items/{sku}/report}) as the suites check it at their end: every item a test
 * created ({@link Shop#createItem} tracks them) must end {@code "consistent": true}. One helper for the contract
 * suites ({@code CartContract}'s {@code @AfterEach}) and the fault suites ({@code FaultySale.verify}).
 */
public final class Settlement {

    /** How long the books may take to add up: the write-behind relay and the hot-stock mirror settle within it. */
    private static final long SETTLE_MILLIS = 30_000;

    /**
     * The checks that compare Redis with MySQL and so may fail for a moment while the relay or the mirror is between
     * its two steps; the others read one MySQL snapshot, where every change commits whole: they fail at once.
     */
    private static final Set<String> SETTLING = Set.of("hot-stock-matches", "not-oversold");

    private static final Set<String> TRACKED = ConcurrentHashMap.newKeySet();

    private Settlement() {
    }

    /** Remembers an item the running test created, for {@link #assertTrackedConsistent()}. */
    static void track(String sku) {
        TRACKED.add(sku);
    }

    /** Forgets the items tracked so far: a test starts with none (those of earlier classes are not its own). */
    public static void forgetTracked() {
        TRACKED.clear();
    }

    /** The report of the item, as the staff token (admin) reads it; 200 expected. */
    public static JsonPath report(String sku) {
        return given().get("/items/" + sku + "/report").then().statusCode(200).extract().jsonPath();
    }

    /** The names of the report's failing checks. */
    public static List<String> failingNames(JsonPath report) {
        return report.<Map<String, Object>>getList("checks").stream()
                .filter(check -> !Boolean.TRUE.equals(check.get("ok"))).map(check -> (String) check.get("name"))
                .toList();
    }

    /** The report's failing checks, with their details. */
    public static List<String> failing(JsonPath report) {
        List<String> failing = new ArrayList<>();
        for (Map<String, Object> check : report.<Map<String, Object>>getList("checks")) {
            if (!Boolean.TRUE.equals(check.get("ok"))) {
                failing.add(check.get("name") + ": " + check.get("detail"));
            }
        }
        return failing;
    }

    /**
     * The item's report says {@code "consistent": true}, within {@value #SETTLE_MILLIS} ms while only checks of
     * {@link #SETTLING} fail (write-behind's relay, the hot stock's mirror and reconcile settle meanwhile); else fails
     * naming the checks that still fail.
     */
    public static void assertConsistent(String sku) {
        long deadline = System.currentTimeMillis() + SETTLE_MILLIS;
        JsonPath report = report(sku);
        while (!report.getBoolean("consistent") && SETTLING.containsAll(failingNames(report))
                && System.currentTimeMillis() < deadline) {
            Pause.sleep(200);
            report = report(sku);
        }
        assertTrue(report.getBoolean("consistent"), "the settlement report of " + sku + " is consistent; failing: "
                + failing(report));
    }

    /** {@link #assertConsistent} for every item created since the last call (all of them checked, then forgotten). */
    public static void assertTrackedConsistent() {
        List<String> skus = new ArrayList<>(TRACKED);
        TRACKED.removeAll(skus);
        List<String> inconsistent = new ArrayList<>();
        for (String sku : skus) {
            try {
                assertConsistent(sku);
            } catch (AssertionError e) {
                inconsistent.add(e.getMessage());
            }
        }
        assertTrue(inconsistent.isEmpty(), String.join("\n", inconsistent));
    }
}
