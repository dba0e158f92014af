package io.flashstock.deduction.lua;

import java.util.UUID;

import jakarta.inject.Singleton;

/**
 * This pod's random identity in Redis: written into the pending orders it acknowledges, so that in write-behind its
 * relay persists its own entries at once and leaves other pods' entries to them (or to the claim after
 * {@code flashstock.lua.claim-after}).
 */
@Singleton
public class PodIdentity {

    private final String id = UUID.randomUUID().toString();

    public String id() {
        return id;
    }

    /** This pod's relay in the streams' consumer group (write-through requests read as the pod {@link #id} itself). */
    public String relay() {
        return id + "/relay";
    }
}
