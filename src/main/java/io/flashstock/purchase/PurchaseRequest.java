package io.flashstock.purchase;

import io.flashstock.web.InputRules;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;

/**
 * Body of {@code POST /items/{sku}/purchases}. The upper bound of quantity is configuration. {@code userId} is
 * required from a shop and optional from a buyer, who buys as its token's user ({@link io.flashstock.access.Caller}).
 */
public record PurchaseRequest(
        @Pattern(regexp = InputRules.USER_ID, message = InputRules.USER_ID_MESSAGE) String userId,
        @NotNull @Min(1) Integer quantity) {
}
