package io.flashstock.purchase;

import io.flashstock.web.InputRules;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * Body of {@code POST /items/{sku}/purchases}. The upper bound of quantity is configuration. {@code userId} is
 * required from a shop and optional from a buyer, who buys as its token's user ({@link io.flashstock.access.Caller}).
 * Its rules are checked by {@link PurchaseInput}; the {@code @Schema} annotations only describe them in /q/openapi.
 */
public record PurchaseRequest(
        @Schema(pattern = InputRules.USER_ID) String userId,
        @Schema(required = true, minimum = "1") Integer quantity) {
}
