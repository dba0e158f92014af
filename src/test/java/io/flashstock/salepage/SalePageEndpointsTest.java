package io.flashstock.salepage;

import static io.flashstock.testsupport.Api.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.URL;
import java.util.List;
import java.util.Map;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.LocalServersResource;
import io.flashstock.testsupport.Pause;
import io.flashstock.testsupport.Shop;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Test;

/**
 * The sale page's endpoints over HTTP, in the gate (the redis-lua write-behind start that {@code MetricsTableTest}
 * uses: no start of its own): the page and its files on the management port only, {@code /sale} sent to
 * {@code /sale/}, and {@code /sale/data} in the shape docs/operations.md documents, with a bought item's counters as
 * {@code GET /items/{sku}} reads them and this pod among the serving pods. The browser test is
 * {@code SalePageBrowserTest} (full lane).
 */
@QuarkusTest
@TestProfile(StrategyProfiles.RedisLuaWriteBehind.class)
@WithTestResource(LocalServersResource.class)
class SalePageEndpointsTest {

    @TestHTTPResource(value = "/", management = true)
    URL management;

    @Test
    void pageAndFilesAreServedOnTheManagementPortOnly() {
        RestAssured.given().redirects().follow(false).get(url("/sale")).then().statusCode(302)
                .header("Location", "/sale/");
        RestAssured.get(url("/sale/")).then().statusCode(200).contentType(startsWith("text/html"))
                .header("Content-Security-Policy", containsString("default-src 'none'"))
                .body(containsString("page.js"));
        RestAssured.get(url("/sale/page.js")).then().statusCode(200).contentType(startsWith("text/javascript"));
        RestAssured.get(url("/sale/page.css")).then().statusCode(200).contentType(startsWith("text/css"));
        given().get("/sale/").then().statusCode(404); // the API port serves no page
        given().get("/sale/data").then().statusCode(404);
    }

    @Test
    void dataShowsABoughtItemAsTheApiReadsIt() {
        String sku = Shop.newSku("page-data");
        Shop.createItem(sku, 5, 0);
        Shop.buy(sku, "pd-1", 2);
        Shop.purchase(sku, "pd-2", 4, null).then().statusCode(409); // sold out: 3 left

        JsonPath item = Shop.item(sku);
        Map<String, Object> shown = awaitItem(sku, item.getInt("sold") + item.getInt("reserved"));
        assertEquals(item.getInt("available"), shown.get("available"));
        assertEquals(item.getInt("reserved"), shown.get("reserved"));
        assertEquals(item.getInt("sold"), shown.get("sold"));
        assertEquals(PerSecond.SECONDS, ((List<?>) shown.get("purchasesPerSecond")).size());
        assertEquals(1, sum(shown.get("purchasesPerSecond")), "one purchase answered here");
        assertEquals(1, sum(((Map<?, ?>) shown.get("refusalsPerSecond")).get("sold-out")), "one sold-out refusal");

        JsonPath data = awaitData(d -> d.getLong("latency.purchases") >= 2);
        assertEquals("redis-lua", data.getString("strategy"));
        assertEquals(50, data.getInt("maxItems"));
        assertNotNull(data.getString("at"));
        assertNotNull(data.get("relay.lagSeconds"), "redis-lua has a relay");
        assertTrue(data.getLong("latency.purchases") >= 2, "the two purchases are in the window");
        String self = data.getString("pod.lease");
        List<Map<String, Object>> pods = data.getList("pods");
        assertTrue(pods.stream().anyMatch(p -> self.equals(p.get("lease")) && Boolean.TRUE.equals(p.get("self"))
                && ((Number) p.get("leaseMs")).longValue() > 0), "this pod serves: " + pods);
    }

    /**
     * The item in /sale/data once its counters show {@code taken} units reserved or sold, its one purchase and its one
     * sold-out refusal (refreshed each second).
     */
    private Map<String, Object> awaitItem(String sku, int taken) {
        long deadline = System.currentTimeMillis() + 10_000;
        while (true) {
            List<Map<String, Object>> items = RestAssured.get(url("/sale/data")).then().statusCode(200).extract()
                    .jsonPath().getList("items");
            Map<String, Object> item = items.stream().filter(i -> sku.equals(i.get("sku"))).findFirst().orElse(null);
            if (item != null && item.get("sold") != null
                    && ((Number) item.get("sold")).intValue() + ((Number) item.get("reserved")).intValue() == taken
                    && sum(item.get("purchasesPerSecond")) == 1
                    && item.get("refusalsPerSecond") instanceof Map<?, ?> refusals
                    && sum(refusals.get("sold-out")) == 1) {
                return item;
            }
            assertTrue(System.currentTimeMillis() < deadline, "/sale/data did not show " + sku + ": " + items);
            Pause.sleep(200);
        }
    }

    /**
     * /sale/data once {@code shown} holds for it (its figures are refreshed each second: a busy machine may show the
     * purchase and the refusal in different seconds), 10 s at most.
     */
    private JsonPath awaitData(java.util.function.Predicate<JsonPath> shown) {
        long deadline = System.currentTimeMillis() + 10_000;
        while (true) {
            JsonPath data = RestAssured.get(url("/sale/data")).then().statusCode(200)
                    .contentType(startsWith("application/json")).header("Cache-Control", "no-store")
                    .extract().jsonPath();
            if (shown.test(data) || System.currentTimeMillis() > deadline) {
                return data;
            }
            Pause.sleep(200);
        }
    }

    private static long sum(Object series) {
        return series == null ? 0 : ((List<?>) series).stream().mapToLong(v -> ((Number) v).longValue()).sum();
    }

    private String url(String path) {
        return URI.create(management.toString()).resolve(path).toString(); // the page is not under /q
    }
}
