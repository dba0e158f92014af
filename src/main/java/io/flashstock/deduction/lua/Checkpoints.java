package io.flashstock.deduction.lua;

import io.quarkus.arc.DefaultBean;
import jakarta.inject.Singleton;

/**
 * The steps of redis-lua's sagas after which one durable change is made and the next is not: where a pod that dies
 * (killed, out of memory) leaves work for the others to finish (docs/multi-item-purchases.md, "Crash points"). In
 * production every step just passes ({@link Passing}); the crash tests put a bean of their own in its place that
 * makes a cart request, or a relay round, die at one of them.
 */
public interface Checkpoints {

    /** A step done, the next one not begun. */
    enum Step {
        /** A cart's decision record is open (PENDING); none of its lines holds units yet. */
        CART_OPENED,
        /** The first line of a cart holds its units in Redis. */
        CART_FIRST_LINE,
        /** A refused cart is decided ABORTED; the lines it reserved are not given back yet. */
        CART_ABORTED,
        /** A cart is decided COMMITTED; it is not in MySQL yet. */
        CART_COMMITTED,
        /** MySQL refused a COMMITTED cart, now ABORTED (REFUSED); its lines are not taken back yet. */
        CART_REFUSED,
        /** A relay's batch is committed in MySQL; its stream entries are not removed yet. */
        RELAY_COMMITTED,
        /** MySQL refused a write-through order for want of units; its purchase is not taken back yet. */
        WRITE_THROUGH_REFUSED
    }

    /** The saga got past {@code step}. */
    void passed(Step step);

    /** Production: nothing happens at any step. */
    @DefaultBean
    @Singleton
    class Passing implements Checkpoints {
        @Override
        public void passed(Step step) {
            // on with the next step
        }
    }
}
