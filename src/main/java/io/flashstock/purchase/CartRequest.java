package io.flashstock.purchase;

import java.util.List;

import io.flashstock.deduction.CartCommand;
import io.flashstock.web.InputRules;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * Body of {@code POST /purchases}: 1 to {@value CartCommand#MAX_LINES} lines of distinct skus. {@code userId} is
 * required from a shop and optional from a buyer, as for single purchases.
 */
public record CartRequest(
        @Pattern(regexp = InputRules.USER_ID, message = InputRules.USER_ID_MESSAGE) String userId,
        @NotNull(message = "at least one line is required")
        @Size(min = 1, max = CartCommand.MAX_LINES, message = "between 1 and " + CartCommand.MAX_LINES + " lines")
        List<@NotNull(message = "a line is required") @Valid Line> lines) {

    /** One line: units of one item. */
    public record Line(
            @NotNull(message = "a sku is required")
            @Pattern(regexp = InputRules.SKU, message = InputRules.SKU_MESSAGE) String sku,
            @NotNull(message = "a quantity is required") @Min(1) Integer quantity) {
    }

    List<CartCommand.Line> commandLines() {
        return lines.stream().map(line -> new CartCommand.Line(line.sku(), line.quantity())).toList();
    }
}
