package io.flashstock.order;

import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

/**
 * Body of {@code POST /orders/{orderId}/extend}: keep the reservation at least this many seconds from now (it is
 * never shortened, and never beyond {@code flashstock.reservation-max-ttl} after the purchase).
 */
public record ExtendRequest(@NotNull @Min(1) Integer seconds) {
}
