package io.flashstock.events;

/**
 * One CloudEvent as it goes to Kafka: the record key (the item's sku, so that an item's events stay in order in one
 * partition), its {@code id} and {@code type}, and the whole event in structured mode (CloudEvents 1.0 JSON, content
 * type {@value #CONTENT_TYPE}).
 */
public record SaleEvent(String key, String id, String type, String json) {

    /** The Kafka record's {@code content-type} header in structured mode. */
    public static final String CONTENT_TYPE = "application/cloudevents+json; charset=UTF-8";
}
