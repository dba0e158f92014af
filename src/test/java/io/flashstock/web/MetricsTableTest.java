package io.flashstock.web;

import static io.flashstock.testsupport.Api.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.LocalServersResource;
import io.flashstock.testsupport.Shop;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.Test;

/**
 * The README's metrics table is what {@code /q/metrics} serves, after a short sale that touches every endpoint: every
 * metric the table names is there, and every {@code flashstock_*} metric there is in the table. Along the way: the
 * latency timers are histograms with their buckets, the HTTP metrics name endpoints by template only (a 405 and a 413
 * answered before any endpoint was chosen included; a 413 on a made-up path is UNMATCHED), and the per-item progress
 * of the sale's item is reported, while a made-up sku leaves no series. Runs in the redis-lua write-behind profile's
 * Quarkus instance.
 */
@QuarkusTest
@TestProfile(StrategyProfiles.RedisLuaWriteBehind.class)
@WithTestResource(LocalServersResource.class)
class MetricsTableTest {

    /** The README section whose first table is the metrics table. */
    private static final String SECTION = "## Metrics";
    private static final Pattern ROW = Pattern.compile("^\\| `([a-z_]+)[{`]");
    private static final List<String> SUFFIXES = List.of("_bucket", "_count", "_sum", "_max");
    /** Every uri tag the API port may report: the endpoints' templates and Micrometer's own words. */
    private static final Set<String> TEMPLATES = Set.of("/items", "/items/{sku}", "/items/{sku}/purchases",
            "/items/{sku}/availability", "/items/{sku}/restock", "/items/{sku}/sale", "/items/{sku}/stock",
            "/items/{sku}/retire", "/items/{sku}/movements", "/items/{sku}/report", "/orders", "/orders/{orderId}",
            "/orders/{orderId}/confirm", "/orders/{orderId}/cancel", "/orders/{orderId}/extend", "/purchases",
            "/purchases/{purchaseId}", "/purchases/{purchaseId}/confirm", "/purchases/{purchaseId}/cancel",
            "NOT_FOUND", "REDIRECTION", "root", PathLabels.UNMATCHED);

    @TestHTTPResource(value = "/metrics", management = true)
    URL metrics;

    @Test
    void readmeTableMatchesTheMetricsAfterASale() throws IOException {
        String sku = Shop.newSku("metrics");
        String madeUp = Shop.newSku("made-up");
        Shop.createItem(sku, 3, 0);
        String confirmed = Shop.buy(sku, "m-1", 1);
        String cancelled = Shop.buy(sku, "m-2", 1);
        given().post("/orders/" + confirmed + "/confirm").then().statusCode(200);
        given().post("/orders/" + cancelled + "/cancel").then().statusCode(200);
        String cart = given().contentType(ContentType.JSON)
                .body("{\"userId\":\"m-3\",\"lines\":[{\"sku\":\"" + sku + "\",\"quantity\":1}]}")
                .post("/purchases").then().statusCode(201).extract().path("purchaseId");
        given().post("/purchases/" + cart + "/confirm").then().statusCode(200);
        Shop.buy(sku, "m-4", 1);
        Shop.purchase(sku, "m-5", 1, null).then().statusCode(409); // sold out
        Shop.purchase(madeUp, "m-5", 1, null).then().statusCode(404);
        given().get("/items/" + sku + "/availability").then().statusCode(200);
        given().get("/items/" + sku + "/sale").then().statusCode(405); // no endpoint: the match patterns name it
        given().contentType(ContentType.JSON).body("{\"paused\":" + " ".repeat(20_000) + "false}")
                .put("/items/" + sku + "/sale").then().statusCode(413);
        given().contentType(ContentType.JSON).body("{\"paused\":" + " ".repeat(20_000) + "false}")
                .put("/" + madeUp + "/sale").then().statusCode(413); // no endpoint, no pattern: UNMATCHED
        given().get("/items/" + sku + "/movements").then().statusCode(200);
        given().get("/purchases/" + cart).then().statusCode(200);

        Set<String> table = readmeTable();
        String text = awaitSoldAndServed(sku, 2, 1, table);
        Files.writeString(Path.of("target/metrics-after-sale.txt"), text); // to read when this test fails
        Set<String> samples = sampleNames(text);
        Set<String> missing = missing(table, samples);
        Set<String> undocumented = new TreeSet<>();
        for (String sample : samples) {
            if (sample.startsWith("flashstock_") && !table.contains(sample) && SUFFIXES.stream().noneMatch(
                    s -> sample.endsWith(s) && table.contains(sample.substring(0, sample.length() - s.length())))) {
                undocumented.add(sample);
            }
        }
        assertEquals(Set.of(), missing, "metrics the README table names that /q/metrics does not serve");
        assertEquals(Set.of(), undocumented, "flashstock metrics /q/metrics serves that the README table lacks");

        for (String timer : List.of("flashstock_purchases_seconds", "flashstock_carts_seconds",
                "flashstock_confirms_seconds", "flashstock_cancels_seconds")) {
            for (String le : List.of("0.001", "0.0025", "0.25", "+Inf")) {
                Pattern bucket = Pattern.compile("(?m)^" + timer + "_bucket\\{(?=[^}]*le=\"" + Pattern.quote(le)
                        + "\")(?=[^}]*strategy=\"redis-lua\")");
                assertTrue(bucket.matcher(text).find(), timer + " bucket le=" + le);
            }
        }
        for (String pool : List.of("agroal_active_count", "agroal_awaiting_count", "agroal_max_used_count")) {
            assertTrue(Pattern.compile("(?m)^" + pool + "\\{").matcher(text).find(), "the README's Agroal metric " + pool);
        }
        Matcher uri = Pattern.compile("(?m)^http_server_requests_seconds_count\\{.*uri=\"([^\"]*)\"").matcher(text);
        Set<String> uris = new TreeSet<>();
        while (uri.find()) {
            uris.add(uri.group(1));
        }
        assertTrue(uris.contains("/items/{sku}/sale"), "the 405 and 413 under their template: " + uris);
        assertTrue(uris.contains(PathLabels.UNMATCHED), "a 413 on a made-up path: " + uris);
        uris.removeIf(u -> TEMPLATES.contains(u) || u.startsWith("/q/"));
        assertEquals(Set.of(), uris, "uri tags that are not endpoint templates");

        assertEquals(4.0, value(text, "flashstock_item_purchases_total{sku=\"" + sku + "\"}"), "purchases of " + sku);
        assertEquals(1.0, value(text, "flashstock_item_refusals_total{code=\"sold-out\",sku=\"" + sku + "\"}"));
        assertEquals(0.0, value(text, "flashstock_item_available{sku=\"" + sku + "\"}"));
        assertEquals(1.0, value(text, "flashstock_item_reserved{sku=\"" + sku + "\"}"));
        assertFalse(text.contains(madeUp), "a made-up sku is no label value");
    }

    /**
     * /q/metrics once the item's sold gauge shows {@code sold} (it is refreshed once a second) and every metric of the
     * table is served: some are registered by a purchase's or a background round's first use, which a busy machine may
     * serve late.
     */
    private String awaitSoldAndServed(String sku, int sold, int reserved, Set<String> table) {
        long deadline = System.currentTimeMillis() + 30_000;
        while (true) {
            String text = RestAssured.get(metrics).then().statusCode(200).extract().asString();
            // write-behind: the relay persists the last order (the counters' refresh reads MySQL) after the confirms
            boolean shown = value(text, "flashstock_item_sold{sku=\"" + sku + "\"}") == sold
                    && value(text, "flashstock_item_reserved{sku=\"" + sku + "\"}") == reserved
                    && missing(table, sampleNames(text)).isEmpty();
            if (shown || System.currentTimeMillis() > deadline) {
                return text;
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted");
            }
        }
    }

    /** The metric names of the samples in {@code text} (labels and value cut off). */
    private static Set<String> sampleNames(String text) {
        Set<String> samples = new TreeSet<>();
        for (String line : text.split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                samples.add(line.substring(0, indexOfAny(line, "{ ")));
            }
        }
        return samples;
    }

    /** The names of {@code table} with no sample, under their own name or a histogram's or timer's suffix. */
    private static Set<String> missing(Set<String> table, Set<String> samples) {
        Set<String> missing = new TreeSet<>();
        for (String name : table) {
            if (!samples.contains(name) && SUFFIXES.stream().noneMatch(s -> samples.contains(name + s))) {
                missing.add(name);
            }
        }
        return missing;
    }

    /** The value of the sample {@code series} (name and labels as served), NaN if absent. */
    private static double value(String text, String series) {
        Matcher sample = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(text);
        return sample.find() ? Double.parseDouble(sample.group(1)) : Double.NaN;
    }

    /** The metric names of the README's metrics table. */
    static Set<String> readmeTable() throws IOException {
        List<String> lines = Files.readAllLines(Path.of("README.md"));
        int start = lines.indexOf(SECTION);
        assertTrue(start >= 0, "README.md has a section '" + SECTION + "'");
        Set<String> names = new TreeSet<>();
        for (String line : lines.subList(start + 1, lines.size())) {
            if (line.startsWith("## ")) {
                break;
            }
            Matcher row = ROW.matcher(line);
            if (row.find()) {
                names.add(row.group(1));
            }
        }
        assertFalse(names.isEmpty(), "the README's metrics table has rows");
        return names;
    }

    private static int indexOfAny(String line, String chars) {
        for (int i = 0; i < line.length(); i++) {
            if (chars.indexOf(line.charAt(i)) >= 0) {
                return i;
            }
        }
        return line.length();
    }
}
