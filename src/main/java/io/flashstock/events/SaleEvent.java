package io.flashstock.events;

import java.nio.charset.StandardCharsets;

/**
 * One CloudEvent as it goes to Kafka: the record key (the item's sku, so that an item's events stay in order in one
 * partition), its {@code id} and {@code type}, and the whole event in structured mode (CloudEvents 1.0 JSON in UTF-8,
 * content type {@value #CONTENT_TYPE}) as the record's value. The bytes are not copied: nothing changes them.
 */
public record SaleEvent(String key, String id, String type, byte[] value) {

    /** The Kafka record's {@code content-type} header in structured mode. */
    public static final String CONTENT_TYPE = "application/cloudevents+json; charset=UTF-8";

    /** The event's JSON as text. */
    public String json() {
        return new String(value, StandardCharsets.UTF_8);
    }
}
