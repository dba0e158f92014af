package io.flashstock.web;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;

import org.junit.jupiter.api.Test;

/** {@link PromQlNames} finds the metric names of the expressions we ship and nothing else (a plain unit test). */
class PromQlNamesTest {

    @Test
    void histogramQuantileWithGroupingAndGrafanaVariables() {
        assertEquals(Set.of("flashstock_purchases_seconds_bucket"), PromQlNames.of("histogram_quantile(0.99, sum by"
                + " (le, strategy) (rate(flashstock_purchases_seconds_bucket{namespace=~\"$namespace\","
                + " strategy=~\"${strategy}\", outcome!=\"sum(up)\"}[$__rate_interval])))"));
    }

    @Test
    void binaryOperatorsVectorMatchingAndOffsets() {
        assertEquals(Set.of("a_total", "b_seconds_count", "c"), PromQlNames.of("(sum(rate(a_total[5m])) or vector(0))"
                + " + on (pod) group_left(sku) sum without (code) (increase(b_seconds_count[1h30m] offset 5m))"
                + " / ignoring(x) c > bool 0.05 AND ON () 1e3 > -Inf unless sum(a_total) BY (le)"));
    }

    @Test
    void subqueriesAndAtModifiers() {
        assertEquals(Set.of("x", "y:ratio_5m"), PromQlNames.of(
                "max_over_time(rate(x[1m])[10m:30s]) @ start() > topk(5, y:ratio_5m) @ 1609746000"));
    }

    @Test
    void grafanaVariableQueries() {
        assertEquals(Set.of("flashstock_item_sold"),
                PromQlNames.ofVariableQuery("label_values(flashstock_item_sold{namespace=~\"$namespace\"}, sku)"));
        assertEquals(Set.of(), PromQlNames.ofVariableQuery("label_values(pod)"));
        assertEquals(Set.of(), PromQlNames.ofVariableQuery("metrics(flashstock_.*)"));
        assertEquals(Set.of("up"), PromQlNames.ofVariableQuery("query_result(count by (pod) (up))"));
    }
}
