package io.flashstock.events;

import java.util.List;

/** Where the publisher's events go: the Kafka topic ({@link KafkaDelivery}). */
public interface Delivery {

    /** Whether events go anywhere: a broker is configured and events are on. */
    boolean on();

    /**
     * Sends {@code events} in their order and waits, bounded ({@code flashstock.events.send-timeout}), for the
     * broker's acknowledgements. Answers, per event, whether it may count as published: acknowledged, and no earlier
     * event of its key failed (sending that one again after its successor would reorder the item's events). Never
     * throws for a broker that is down or slow.
     */
    boolean[] deliver(List<SaleEvent> events);
}
