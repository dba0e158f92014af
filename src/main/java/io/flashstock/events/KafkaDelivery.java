package io.flashstock.events;

import java.util.List;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * The publisher's events to Kafka through the pod's one idempotent producer ({@link EventSink}), in structured mode:
 * the record's value is the whole CloudEvent as JSON, its {@code content-type} header says so (docs/events.md).
 */
@ApplicationScoped
class KafkaDelivery implements Delivery {

    private static final Map<String, String> HEADERS = Map.of("content-type", SaleEvent.CONTENT_TYPE);

    private final EventSink sink;

    KafkaDelivery(EventSink sink) {
        this.sink = sink;
    }

    @Override
    public boolean on() {
        return sink.enabled();
    }

    @Override
    public boolean[] deliver(List<SaleEvent> events) {
        return sink.send(events.stream().map(event -> new OutgoingEvent(event.key(), event.value(), HEADERS))
                .toList()).ackedInOrderPerKey();
    }
}
