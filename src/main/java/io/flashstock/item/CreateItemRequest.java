package io.flashstock.item;

import io.flashstock.web.InputRules;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.PositiveOrZero;
import jakarta.validation.constraints.Size;

/** Body of {@code POST /items}. {@code perUserLimit} absent or 0 means no limit. */
public record CreateItemRequest(
        @NotNull @Pattern(regexp = InputRules.SKU, message = InputRules.SKU_MESSAGE) String sku,
        @NotBlank @Size(max = 200) String name,
        @NotNull @PositiveOrZero Integer stock,
        @PositiveOrZero Integer perUserLimit) {
}
