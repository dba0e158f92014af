package io.flashstock.events;

import java.util.Map;
import java.util.Objects;

/**
 * One record for {@link EventSink#send}: the key (the sku, so that each item's events stay in order in one partition),
 * the value (the event's bytes, e.g. a structured-mode CloudEvent), and headers (UTF-8 strings, e.g.
 * {@code content-type} or binary mode's {@code ce_*}).
 */
public record OutgoingEvent(String key, byte[] value, Map<String, String> headers) {

    public OutgoingEvent {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        headers = headers == null ? Map.of() : headers;
    }
}
