package io.flashstock.item;

import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

/** Body of {@code POST /items/{sku}/restock}: units added to stock and available. */
public record RestockRequest(@NotNull @Min(1) Integer quantity) {
}
