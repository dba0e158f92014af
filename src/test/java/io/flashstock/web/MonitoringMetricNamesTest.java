package io.flashstock.web;

import static io.flashstock.testsupport.Api.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.devservices.LocalServers;
import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.LocalServersResource;
import io.flashstock.testsupport.Shop;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.Test;

/**
 * Every metric the Grafana dashboard and the Prometheus alert rules in {@value MonitoringFiles#DIRECTORY} use is served
 * by {@code /q/metrics} after a short sale (an item created with a sale window, purchases, a confirm, a cancel, a
 * multi-item purchase, a sold-out refusal), except the external metrics of {@link #EXTERNAL}, the one list of
 * metrics that come from elsewhere. Names are taken from every panel query, every variable query and every rule's
 * {@code expr} ({@link PromQlNames}) and must be served as written: a {@code _bucket} needs the histogram's buckets, a
 * {@code _count} the timer. The files' shape is checked by {@link MonitoringFiles}. Runs in the redis-lua
 * write-behind profile (the relay's metrics included), in a database and Redis index of its own.
 */
@QuarkusTest
@TestProfile(MonitoringMetricNamesTest.Profile.class)
@WithTestResource(MonitoringMetricNamesTest.OwnServers.class)
class MonitoringMetricNamesTest {

    /**
     * Metrics the dashboard and rules may use that flashstock does not serve, and where they come from. Keep it to
     * what a cluster running the Prometheus Operator has anyway; each entry must be used.
     */
    static final Map<String, String> EXTERNAL = Map.of(
            "up", "Prometheus itself: 1 while the scrape of a target succeeds",
            "kube_pod_status_ready", "kube-state-metrics: each pod's Ready condition (condition=true|false|unknown)");

    static final String DATABASE = "flashstock_test_dash";
    static final int REDIS_DB = 11;
    /** How often flashstock_sales_open is counted ({@code OpenSales}: every 10 s), and a margin. */
    static final long ROUND_MILLIS = 11_000;

    @TestHTTPResource(value = "/metrics", management = true)
    URL metrics;

    @Test
    void everyMetricTheDashboardAndRulesUseIsServedAfterASale() throws IOException {
        Map<String, Set<String>> used = MonitoringFiles.metricNames();
        sale();
        String text = await("flashstock_sales_open", 1);
        Files.writeString(Path.of("target/metrics-monitoring.txt"), text); // to read when this test fails
        Set<String> served = new TreeSet<>();
        for (String line : text.split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                served.add(line.replaceFirst("[{ ].*", ""));
            }
        }

        Map<String, Set<String>> unknown = new TreeMap<>();
        used.forEach((name, where) -> {
            if (!served.contains(name) && !EXTERNAL.containsKey(name)) {
                unknown.put(histogram(name), where);
            }
        });
        assertEquals(Map.of(), unknown, "metrics the dashboard or the alert rules use that /q/metrics does not serve"
                + " after a sale (see target/metrics-monitoring.txt) and that MonitoringMetricNamesTest.EXTERNAL does"
                + " not list; name -> where it is used");
        Set<String> unusedExternal = new TreeSet<>(EXTERNAL.keySet());
        unusedExternal.removeAll(used.keySet());
        assertEquals(Set.of(), unusedExternal, "EXTERNAL lists metrics nothing uses: remove them");
        Set<String> servedExternal = new TreeSet<>(EXTERNAL.keySet());
        servedExternal.retainAll(served);
        assertEquals(Set.of(), servedExternal, "EXTERNAL lists metrics /q/metrics serves: they are not external");
    }

    /**
     * A short sale of a 3-unit item, sold out at the end; beside it an item whose window is open and which nobody buys
     * (the one open sale then), one whose window is paused, one with no window (catalog) and one whose window is over.
     */
    private static void sale() {
        String sku = Shop.newSku("dash");
        Instant now = Instant.now();
        window(sku, now.minus(Duration.ofHours(1)), now.plus(Duration.ofHours(1)), false);
        window(Shop.newSku("dash-open"), now.minus(Duration.ofHours(1)), now.plus(Duration.ofHours(1)), false);
        window(Shop.newSku("dash-paused"), now.minus(Duration.ofHours(1)), now.plus(Duration.ofHours(1)), true);
        window(Shop.newSku("dash-ended"), now.minus(Duration.ofHours(2)), now.minus(Duration.ofHours(1)), false);
        Shop.createItem(Shop.newSku("dash-catalog"), 3, 0);
        String confirmed = Shop.buy(sku, "d-1", 1);
        String cancelled = Shop.buy(sku, "d-2", 1);
        given().post("/orders/" + confirmed + "/confirm").then().statusCode(200);
        given().post("/orders/" + cancelled + "/cancel").then().statusCode(200);
        String cart = given().contentType(ContentType.JSON)
                .body("{\"userId\":\"d-3\",\"lines\":[{\"sku\":\"" + sku + "\",\"quantity\":1}]}")
                .post("/purchases").then().statusCode(201).extract().path("purchaseId");
        given().post("/purchases/" + cart + "/confirm").then().statusCode(200);
        Shop.buy(sku, "d-4", 1);
        Shop.purchase(sku, "d-5", 1, null).then().statusCode(409); // sold out
    }

    /** Creates a 3-unit item with the sale window given. */
    private static void window(String sku, Instant startsAt, Instant endsAt, boolean paused) {
        Shop.createItem(sku, 3, 0);
        given().contentType(ContentType.JSON).header("If-Match", "\"0\"")
                .body(Map.of("startsAt", startsAt.toString(), "endsAt", endsAt.toString(), "paused", paused))
                .put("/items/" + sku + "/sale").then().statusCode(200);
    }

    /**
     * /q/metrics once {@code gauge} shows {@code value} in a read at least one counting round after the sale
     * ({@link #ROUND_MILLIS}: before that, it may show a count taken halfway through the sale), at most 30 s on.
     */
    private String await(String gauge, double value) {
        long earliest = System.currentTimeMillis() + ROUND_MILLIS;
        long deadline = System.currentTimeMillis() + 30_000;
        Pattern sample = Pattern.compile("(?m)^" + Pattern.quote(gauge) + "(?:\\{[^}]*})? (\\S+)$");
        while (true) {
            String text = RestAssured.get(metrics).then().statusCode(200).extract().asString();
            Matcher found = sample.matcher(text);
            if (System.currentTimeMillis() > earliest && found.find() && Double.parseDouble(found.group(1)) == value) {
                return text;
            }
            if (System.currentTimeMillis() > deadline) {
                fail(gauge + " is not " + value + " after 30 s: " + (found.find(0) ? found.group() : "not served"));
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted");
            }
        }
    }

    /** {@code name}, with the histogram or timer it belongs to when it is one of its series. */
    private static String histogram(String name) {
        Matcher series = Pattern.compile("(.+)_(bucket|count|sum|max)$").matcher(name);
        return series.matches() ? name + " (series of " + series.group(1) + ")" : name;
    }

    /** The redis-lua write-behind settings of the other tests of that profile. */
    public static class Profile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return new StrategyProfiles.RedisLuaWriteBehind().getConfigOverrides();
        }
    }

    /** The tests' MySQL and Redis, but a database ({@value #DATABASE}) and Redis index ({@value #REDIS_DB}) apart. */
    public static class OwnServers extends LocalServersResource {
        @Override
        public Map<String, String> start() {
            Map<String, String> settings = super.start();
            settings.put(LocalServers.JDBC_URL, Db.database(settings.get(LocalServers.JDBC_URL), DATABASE));
            settings.put(LocalServers.REDIS_HOSTS,
                    settings.get(LocalServers.REDIS_HOSTS).replaceFirst("/\\d+$", "") + "/" + REDIS_DB);
            assertTrue(settings.get(LocalServers.REDIS_HOSTS).matches("redis://[^/]+/" + REDIS_DB), "one Redis");
            return settings;
        }
    }
}
