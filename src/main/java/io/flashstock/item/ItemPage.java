package io.flashstock.item;

import java.util.List;

/**
 * One page of {@code GET /items}: items in sku order, and {@code next}, the cursor of the following page (the last sku
 * of this one, to send as {@code after}), or null when this page is the last.
 */
public record ItemPage(List<ItemView> items, String next) {
}
