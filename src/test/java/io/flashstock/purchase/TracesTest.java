package io.flashstock.purchase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.LocalServersResource;
import io.flashstock.testsupport.Shop;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * With tracing turned on (it is off by default), a purchase is a tree of spans: the HTTP server span, the strategy's
 * span inside it, and the SQL statements inside that. db-optimistic, in a Quarkus instance of its own.
 */
@QuarkusTest
@TestProfile(TracesTest.Traced.class)
@WithTestResource(LocalServersResource.class)
class TracesTest {

    /** db-optimistic with the OpenTelemetry SDK and JDBC spans on, spans kept in memory only. */
    public static class Traced implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> settings = new HashMap<>(new StrategyProfiles.DbOptimistic().getConfigOverrides());
            settings.put("quarkus.otel.sdk.disabled", "false");
            settings.put("quarkus.otel.exporter.otlp.enabled", "false");
            settings.put("quarkus.datasource.jdbc.telemetry.enabled", "true");
            settings.put("quarkus.otel.bsp.schedule.delay", "50ms");
            return settings;
        }
    }

    @Inject
    InMemorySpans spans;

    @Test
    void aPurchaseIsServerSpanThenStrategyThenSql() throws InterruptedException {
        String sku = Shop.newSku("traced");
        Shop.createItem(sku, 5, 0);
        spans.reset();
        Shop.buy(sku, "t-1", 1);

        SpanData strategy = await(s -> s.getName().equals("db-optimistic purchase"));
        SpanData server = await(s -> s.getKind() == SpanKind.SERVER && s.getTraceId().equals(strategy.getTraceId()));
        assertTrue(server.getName().contains("/items/{sku}/purchases"), server.getName());
        assertTrue(isAncestor(server, strategy), "the strategy's span is inside the request's");
        SpanData sql = await(s -> s.getKind() == SpanKind.CLIENT && s.getTraceId().equals(strategy.getTraceId())
                && isAncestor(strategy, s));
        assertEquals(strategy.getTraceId(), sql.getTraceId(), "the SQL of the purchase: " + sql.getName());
    }

    private boolean isAncestor(SpanData ancestor, SpanData span) {
        Map<String, SpanData> byId = new HashMap<>();
        spans.finished().forEach(s -> byId.put(s.getSpanId(), s));
        for (SpanData at = span; at != null; at = byId.get(at.getParentSpanId())) {
            if (at.getSpanId().equals(ancestor.getSpanId())) {
                return true;
            }
        }
        return false;
    }

    private SpanData await(Predicate<SpanData> wanted) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 5_000;
        while (true) {
            List<SpanData> finished = spans.finished();
            Optional<SpanData> found = finished.stream().filter(wanted).findFirst();
            if (found.isPresent()) {
                return found.get();
            }
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("no such span among " + finished.stream().map(SpanData::getName).toList());
            }
            Thread.sleep(50);
        }
    }
}
