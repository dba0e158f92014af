package io.flashstock.events;

import java.time.Duration;
import java.util.List;

/** Where the publisher's events go: the Kafka topic, through an idempotent producer. */
public interface Delivery {

    /**
     * Sends {@code events} in their order (records of one key keep it) and waits at most {@code bound} for the
     * broker's acknowledgements ({@code acks=all}). Answers, per event, whether it was acknowledged; never throws for a
     * broker that is down or slow.
     */
    boolean[] deliver(List<SaleEvent> events, Duration bound);
}
