package io.flashstock.salepage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.devservices.LocalServers;
import io.flashstock.testsupport.Api;
import io.flashstock.testsupport.Chromium;
import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.Lane;
import io.flashstock.testsupport.Pause;
import io.flashstock.testsupport.LocalServersResource;
import io.flashstock.testsupport.Shop;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * The sale page in a real browser (issue 35): headless Chromium loads {@code /sale/} from the management port while a
 * short sale runs in this Quarkus instance (redis-lua write-behind, so the relay has work), and the test reads what the
 * page shows, not the JSON: the item is there, its figures change while purchases go on (and the page's timestamp
 * with them), and once the sale settles they equal {@code GET /items/{sku}}. Screenshots: {@code target/sale-page.png}
 * mid-sale, {@code target/sale-page-settled.png} after. Own database ({@value #DATABASE}) and Redis db 7; tagged full
 * (a Quarkus start and a browser: about a minute).
 */
@QuarkusTest
@TestProfile(SalePageBrowserTest.Profile.class)
@WithTestResource(SalePageBrowserTest.OwnData.class)
@Tag(Lane.FULL_TAG)
class SalePageBrowserTest {

    static final String DATABASE = "flashstock_test_page";
    private static final int STOCK = 600;
    /** Reads the item's figures as the page shows them, and the page's timestamp, in one go (the page redraws). */
    private static final String READ = """
            const status = document.getElementById('status');
            const card = document.querySelector('.item[data-sku="' + arguments[0] + '"]');
            const text = s => card.querySelector(s).textContent;
            return card === null ? {at: status.dataset.at || ''} : {at: status.dataset.at, live: status.className,
                available: text('.available'), reserved: text('.reserved'), sold: text('.sold'),
                minute: text('.minute'), p99: document.getElementById('p99').textContent};""";

    /** redis-lua write-behind, as the suites' profile, in a Quarkus start of its own (its own database). */
    public static class Profile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return new StrategyProfiles.RedisLuaWriteBehind().getConfigOverrides();
        }
    }

    /** The tests' servers, with a database and a Redis db index of this class's own. */
    public static class OwnData extends LocalServersResource {
        @Override
        public Map<String, String> start() {
            Map<String, String> settings = new HashMap<>(super.start());
            settings.put(LocalServers.JDBC_URL, Db.database(settings.get(LocalServers.JDBC_URL), DATABASE));
            settings.put(LocalServers.REDIS_HOSTS, settings.get(LocalServers.REDIS_HOSTS).replaceFirst("/\\d+$", "")
                    + "/7");
            return settings;
        }
    }

    @TestHTTPResource(value = "/", management = true)
    URL management;

    @Test
    void pageShowsTheSaleAsItRunsAndSettles() throws Exception {
        String sku = Shop.newSku("sale-page");
        Shop.createItem(sku, STOCK, 2);
        URI page = URI.create(management.toString()).resolve("/sale/");
        ChromeDriver browser = Chromium.start(1280, 720);
        ExecutorService buyers = Executors.newFixedThreadPool(3);
        try {
            browser.get(page.toString());
            AtomicInteger sold = new AtomicInteger();
            Future<?> sale = buyers.submit(() -> sell(sku, sold));
            buyers.submit(() -> sell(sku, sold));
            buyers.submit(() -> sell(sku, sold));

            Map<String, Object> first = await(browser, sku, Duration.ofSeconds(20));
            Map<String, Object> second = changed(browser, sku, first);
            assertTrue(sold.get() < STOCK, "the sale must still run while the page is read");
            assertEquals("status live", second.get("live"), "the page must say it is live: " + second);
            assertTrue(String.valueOf(second.get("p99")).matches("[0-9.]+ ms"), "a p99 while buying: " + second);
            awaitTaken(browser, sku, STOCK / 3); // a third gone: the charts have a few seconds to show
            screenshot(browser, "target/sale-page.png");

            sale.get(60, TimeUnit.SECONDS);
            buyers.shutdown();
            assertTrue(buyers.awaitTermination(60, TimeUnit.SECONDS));
            Map<String, Object> settled = settle(browser, sku);
            JsonPath item = Shop.item(sku);
            assertEquals(STOCK, item.getInt("stock"));
            assertEquals(STOCK, item.getInt("available") + item.getInt("reserved") + item.getInt("sold"));
            assertEquals(Map.of("available", item.getString("available"), "reserved", item.getString("reserved"),
                    "sold", item.getString("sold")), figures(settled), "the page must show GET /items/{sku}");
            screenshot(browser, "target/sale-page-settled.png");
        } finally {
            buyers.shutdownNow();
            browser.quit();
        }
    }

    /**
     * One buyer thread: one unit at a time, each user trying three times (per-user limit 2: the third is refused while
     * the first two hold), every third order confirmed and every seventh cancelled, until sold out, then two more
     * seconds of refused purchases so the page shows them. Paced so the sale lasts several seconds.
     */
    private static void sell(String sku, AtomicInteger sold) {
        long soldOutAt = 0;
        for (int n = 0; soldOutAt == 0 || System.currentTimeMillis() - soldOutAt < 2_000; n++) {
            String user = "page-" + Thread.currentThread().getId() + "-" + n / 3;
            var reply = Shop.purchase(sku, user, 1, null);
            if (reply.statusCode() == 201) {
                int count = sold.incrementAndGet();
                String order = reply.path("orderId");
                if (count % 3 == 0) {
                    Api.given().post("/orders/" + order + "/confirm");
                } else if (count % 7 == 0) {
                    Api.given().post("/orders/" + order + "/cancel");
                }
            } else if (reply.statusCode() == 409 && "sold-out".equals(code(reply.path("type"))) && soldOutAt == 0) {
                soldOutAt = System.currentTimeMillis();
            }
            Pause.sleep(25);
        }
    }

    private static String code(String type) {
        return type == null ? "" : type.substring(type.lastIndexOf(':') + 1);
    }

    /** Waits until the page shows the item with its counters read. */
    private static Map<String, Object> await(ChromeDriver browser, String sku, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        Map<String, Object> shown = read(browser, sku);
        while (!shown.containsKey("sold") || "…".equals(shown.get("sold"))) {
            assertTrue(System.nanoTime() < deadline, "the page did not show " + sku + " within " + within + ": "
                    + browser.findElement(By.tagName("body")).getText());
            Pause.sleep(200);
            shown = read(browser, sku);
        }
        return shown;
    }

    /**
     * Reads the page again 2 s after {@code first}, and every second after that for up to 10 s more (a loaded machine
     * may pause the buyers), until both its timestamp and the item's figures have moved: the page keeps updating.
     */
    private static Map<String, Object> changed(ChromeDriver browser, String sku, Map<String, Object> first) {
        Pause.sleep(2_000);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        Map<String, Object> shown = read(browser, sku);
        while (first.get("at").equals(shown.get("at")) || figures(first).equals(figures(shown))) {
            assertTrue(System.nanoTime() < deadline, "the page stopped updating: " + first + " then " + shown);
            Pause.sleep(1_000);
            shown = read(browser, sku);
        }
        return shown;
    }

    /** Waits (up to 30 s) until the page shows at least {@code units} reserved or sold. */
    private static void awaitTaken(ChromeDriver browser, String sku, int units) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            Map<String, Object> shown = read(browser, sku);
            if (Long.parseLong((String) shown.get("reserved")) + Long.parseLong((String) shown.get("sold")) >= units) {
                return;
            }
            assertTrue(System.nanoTime() < deadline, "the page never showed " + units + " units taken: " + shown);
            Pause.sleep(200);
        }
    }

    /** Waits (up to 20 s) until the page's figures equal GET /items/{sku} twice in a row, a second apart. */
    private static Map<String, Object> settle(ChromeDriver browser, String sku) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        Map<String, String> previous = null;
        while (true) {
            Map<String, Object> shown = read(browser, sku);
            JsonPath item = Shop.item(sku);
            Map<String, String> api = Map.of("available", item.getString("available"), "reserved",
                    item.getString("reserved"), "sold", item.getString("sold"));
            if (api.equals(figures(shown)) && api.equals(previous)) {
                return shown;
            }
            assertTrue(System.nanoTime() < deadline, "the page shows " + shown + ", GET /items/{sku} " + api);
            previous = api.equals(figures(shown)) ? api : null;
            Pause.sleep(1_000);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> read(ChromeDriver browser, String sku) {
        Object shown = ((JavascriptExecutor) browser).executeScript(READ, sku);
        assertNotNull(shown);
        return (Map<String, Object>) shown;
    }

    private static Map<String, String> figures(Map<String, Object> shown) {
        return Map.of("available", String.valueOf(shown.get("available")), "reserved",
                String.valueOf(shown.get("reserved")), "sold", String.valueOf(shown.get("sold")));
    }

    private static void screenshot(ChromeDriver browser, String file) throws Exception {
        Path shot = browser.getScreenshotAs(OutputType.FILE).toPath();
        Files.createDirectories(Path.of(file).getParent());
        Files.copy(shot, Path.of(file), StandardCopyOption.REPLACE_EXISTING);
    }
}
