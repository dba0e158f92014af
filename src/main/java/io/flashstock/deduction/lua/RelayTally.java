package io.flashstock.deduction.lua;

/**
 * What one relay round saw left unsettled: entries it read and did not decide (a cart still PENDING, an order MySQL
 * failed for), and the oldest of them, for the relay's pending and lag gauges. One round's, on the relay's thread.
 */
final class RelayTally {

    private long unsettled;
    private long oldestMillis;

    /** An entry read and left undecided. */
    void unsettled(PendingOrder entry) {
        unsettled++;
        oldestMillis = oldestMillis == 0 ? entry.recordedAtMillis() : Math.min(oldestMillis, entry.recordedAtMillis());
    }

    long unsettled() {
        return unsettled;
    }

    /** When the oldest unsettled entry was recorded (ms since the epoch); 0 when none was. */
    long oldestMillis() {
        return unsettled == 0 ? 0 : oldestMillis;
    }
}
