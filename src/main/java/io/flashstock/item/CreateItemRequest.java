package io.flashstock.item;

import io.flashstock.web.InputRules;
import io.flashstock.web.SaleInstant;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;
import jakarta.validation.constraints.Size;

/**
 * Body of {@code POST /items}. {@code perUserLimit} absent or 0 means no limit; {@code startsAt}, {@code endsAt} and
 * {@code paused} set the sale window as {@link SaleRequest} does (the same instant range). {@code reservationTtlSeconds}: how long a RESERVED
 * order of this item holds its units (absent: {@code flashstock.reservation-ttl}; at most
 * {@code flashstock.reservation-max-ttl}).
 */
public record CreateItemRequest(
        @NotNull @Pattern(regexp = InputRules.SKU, message = InputRules.SKU_MESSAGE) String sku,
        @NotBlank @Size(max = 200) String name,
        @NotNull @PositiveOrZero Integer stock,
        @PositiveOrZero Integer perUserLimit,
        @SaleInstant java.time.Instant startsAt,
        @SaleInstant java.time.Instant endsAt,
        Boolean paused,
        @Positive Integer reservationTtlSeconds) {

    /** The sale window asked for (none: on sale from creation); 400 when it ends before it starts. */
    public SaleWindow window() {
        return SaleWindow.of(startsAt, endsAt, paused);
    }
}
