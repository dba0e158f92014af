package io.flashstock.item;

import java.util.List;

/**
 * One page of {@code GET /items/{sku}/movements}: the item's movements in id (append) order, and {@code next}, the
 * cursor of the following page (the last id of this one, to send as {@code after}), or null when this page is the last.
 */
public record MovementPage(List<MovementView> movements, String next) {
}
