package io.flashstock.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/** A path is named by a template, a fixed path or a fixed word; never by what a caller typed. */
class PathLabelsTest {

    private final PathLabels paths = new PathLabels(Optional.of(List.of("/items/[^/]+/purchases=/items/{sku}/purchases",
            "/items/[^/]+/sale=/items/{sku}/sale", "/items/[^/]+=/items/{sku}")));

    @Test
    void namesAPathNoEndpointAnswered() {
        assertEquals("/items/{sku}/sale", paths.name("/items/phone-x/sale", 405));
        assertEquals("/items/{sku}", paths.name("/items/phone-x", 413));
        assertEquals("/items", paths.name("/items", 405));
        assertEquals("NOT_FOUND", paths.name("/made/up", 404));
        assertEquals("/q/health/ready", paths.name("/q/health/ready", 503));
        assertEquals(PathLabels.UNMATCHED, paths.name("/made-up-1", 413));
        assertEquals(PathLabels.UNMATCHED, paths.name("/q/made-up", 413));
        assertEquals(PathLabels.UNMATCHED, paths.name("/items/a/b/c", 413));
    }

    @Test
    void keepsOnlyFixedLabelValues() {
        assertTrue(paths.fixed("/items/{sku}/purchases", "201"));
        assertTrue(paths.fixed("/orders", "200"));
        assertTrue(paths.fixed("NOT_FOUND", "404"));
        assertTrue(paths.fixed("/q/metrics", "200"));
        assertFalse(paths.fixed("/items/phone-x/sale", "413"));
        assertFalse(paths.fixed("/{made}/{up}", "413"));
        assertFalse(paths.fixed("/q/made-up", "413"));
    }
}
