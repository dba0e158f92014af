package io.flashstock.item;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.PositiveOrZero;

/**
 * Body of {@code PUT /items/{sku}/stock}: the item's new stock, at least the units its RESERVED and CONFIRMED orders
 * hold (else 409 {@code stock-below-committed}); available becomes {@code stock - reserved - sold}.
 */
public record SetStockRequest(@NotNull @PositiveOrZero Integer stock) {
}
