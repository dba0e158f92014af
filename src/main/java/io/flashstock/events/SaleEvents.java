package io.flashstock.events;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
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

    private final JsonFactory json;
    private final String source;

    SaleEvents(ObjectMapper json, FlashstockConfig config) {
        this.json = json.getFactory();
        this.source = config.events().source();
    }

    /** The events of {@code movement}, which moved the item's counters from {@code before} to {@code after}. */
    List<SaleEvent> of(OutboxMovement movement, ItemCounters before, ItemCounters after) {
        List<SaleEvent> events = new ArrayList<>(2);
        String type = TYPES.get(movement.kind());
        if (type != null) {
            boolean order = type.startsWith("order.");
            events.add(event(movement, Long.toString(movement.id()), type, order, after));
        }
        if (before.available() > 0 && after.available() == 0) {
            events.add(event(movement, movement.id() + ".sold-out", "item.sold-out", false, after));
        } else if (before.available() == 0 && after.available() > 0 && !"created".equals(movement.kind())) {
            events.add(event(movement, movement.id() + ".units-back", "item.units-back", false, after));
        }
        return events;
    }

    /**
     * The event as CloudEvents 1.0 JSON in UTF-8, written field by field: a busy item's publishing round writes a
     * thousand of them, and a map per event and its serializer look-ups cost more than the writing.
     */
    private SaleEvent event(OutboxMovement movement, String id, String type, boolean order, ItemCounters after) {
        ByteArrayBuilder bytes = new ByteArrayBuilder(512);
        try (JsonGenerator out = json.createGenerator(bytes, JsonEncoding.UTF8)) {
            out.writeStartObject();
            out.writeStringField("specversion", "1.0");
            out.writeStringField("id", id);
            out.writeStringField("source", source);
            out.writeStringField("type", type);
            out.writeStringField("subject", order ? movement.orderId() : movement.sku());
            out.writeStringField("time", movement.at().toString());
            out.writeStringField("datacontenttype", "application/json");
            out.writeObjectFieldStart("data");
            if (order) {
                orderData(out, movement);
            } else {
                itemData(out, movement, after);
            }
            out.writeEndObject();
            out.writeEndObject();
        } catch (IOException e) {
            throw new IllegalStateException("event " + id + " cannot be written", e);
        }
        return new SaleEvent(movement.sku(), id, type, bytes.toByteArray());
    }

    private static void orderData(JsonGenerator out, OutboxMovement movement) throws IOException {
        out.writeStringField("orderId", movement.orderId());
        out.writeStringField("sku", movement.sku());
        out.writeStringField("userId", movement.userId());
        out.writeFieldName("quantity");
        if (movement.quantity() == null) {
            out.writeNull();
        } else {
            out.writeNumber(movement.quantity());
        }
        out.writeStringField("status", ORDER_STATUS.get(movement.kind()));
        out.writeStringField("purchaseId", movement.purchaseId());
        out.writeStringField("expiresAt", movement.expiresAt() == null ? null : movement.expiresAt().toString());
        out.writeStringField("actor", movement.actor());
    }

    private static void itemData(JsonGenerator out, OutboxMovement movement, ItemCounters after) throws IOException {
        out.writeStringField("sku", movement.sku());
        out.writeNumberField("stock", after.stock());
        out.writeNumberField("available", after.available());
        out.writeNumberField("reserved", after.reserved());
        out.writeNumberField("sold", after.sold());
        out.writeNumberField("stockChange", movement.stockDelta());
        out.writeNumberField("availableChange", movement.availableDelta());
        out.writeStringField("actor", movement.actor());
    }
}
