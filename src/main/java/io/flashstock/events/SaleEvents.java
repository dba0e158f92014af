package io.flashstock.events;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flashstock.config.FlashstockConfig;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Turns a movement of the ledger into its CloudEvents (docs/events.md): one per movement (none for a
 * {@code correction}), plus {@code item.sold-out} when it took the last available unit and {@code item.units-back}
 * when units came back to an item that had none. An event's {@code id} is its movement's id (with
 * {@code .sold-out} or {@code .units-back} for those two), so a redelivered event has the id it had.
 */
@ApplicationScoped
public class SaleEvents {

    private static final Map<String, String> TYPES = Map.ofEntries(
            Map.entry("reserve", "order.reserved"), Map.entry("confirm", "order.confirmed"),
            Map.entry("cancel", "order.cancelled"), Map.entry("expire", "order.expired"),
            Map.entry("extend", "order.extended"), Map.entry("created", "item.created"),
            Map.entry("restock", "item.restocked"), Map.entry("stock-set", "item.stock-set"),
            Map.entry("retire", "item.retired"), Map.entry("sale-window", "item.sale-changed"));
    private static final Map<String, String> ORDER_STATUS = Map.of("reserve", "RESERVED", "extend", "RESERVED",
            "confirm", "CONFIRMED", "cancel", "CANCELLED", "expire", "EXPIRED");

    private final ObjectMapper json;
    private final String source;

    SaleEvents(ObjectMapper json, FlashstockConfig config) {
        this.json = json;
        this.source = config.events().source();
    }

    /** The events of {@code movement}, which moved the item's counters from {@code before} to {@code after}. */
    List<SaleEvent> of(OutboxMovement movement, ItemCounters before, ItemCounters after) {
        List<SaleEvent> events = new ArrayList<>(2);
        String type = TYPES.get(movement.kind());
        if (type != null) {
            boolean order = type.startsWith("order.");
            events.add(event(movement, Long.toString(movement.id()), type,
                    order ? movement.orderId() : movement.sku(), order ? orderData(movement) : itemData(movement,
                            after)));
        }
        if (before.available() > 0 && after.available() == 0) {
            events.add(event(movement, movement.id() + ".sold-out", "item.sold-out", movement.sku(),
                    itemData(movement, after)));
        } else if (before.available() == 0 && after.available() > 0 && !"created".equals(movement.kind())) {
            events.add(event(movement, movement.id() + ".units-back", "item.units-back", movement.sku(),
                    itemData(movement, after)));
        }
        return events;
    }

    private SaleEvent event(OutboxMovement movement, String id, String type, String subject,
            Map<String, Object> data) {
        Map<String, Object> event = new LinkedHashMap<>();
        event.put("specversion", "1.0");
        event.put("id", id);
        event.put("source", source);
        event.put("type", type);
        event.put("subject", subject);
        event.put("time", movement.at().toString());
        event.put("datacontenttype", "application/json");
        event.put("data", data);
        try {
            return new SaleEvent(movement.sku(), id, type, json.writeValueAsString(event));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("event " + id + " cannot be written", e);
        }
    }

    private static Map<String, Object> orderData(OutboxMovement movement) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("orderId", movement.orderId());
        data.put("sku", movement.sku());
        data.put("userId", movement.userId());
        data.put("quantity", movement.quantity());
        data.put("status", ORDER_STATUS.get(movement.kind()));
        data.put("purchaseId", movement.purchaseId());
        data.put("expiresAt", movement.expiresAt() == null ? null : movement.expiresAt().toString());
        data.put("actor", movement.actor());
        return data;
    }

    private static Map<String, Object> itemData(OutboxMovement movement, ItemCounters after) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("sku", movement.sku());
        data.put("stock", after.stock());
        data.put("available", after.available());
        data.put("reserved", after.reserved());
        data.put("sold", after.sold());
        data.put("stockChange", movement.stockDelta());
        data.put("availableChange", movement.availableDelta());
        data.put("actor", movement.actor());
        return data;
    }
}
