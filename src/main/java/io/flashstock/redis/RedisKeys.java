package io.flashstock.redis;

/**
 * Every Redis key flashstock uses, in one place. All keys of one item share the hash tag {@code {<sku>}}, so a
 * script that touches several of them stays in one Redis Cluster slot. The sku allow-list
 * ({@link io.flashstock.rest.InputRules#SKU}) keeps braces, colons, asterisks and spaces out of keys.
 */
public final class RedisKeys {

    private RedisKeys() {
    }

    private static String prefix(String sku) {
        return "fs:{" + sku + "}:";
    }

    /** The item's lock token (redis-lock). Always carries a TTL (the lease). */
    public static String lock(String sku) {
        return prefix(sku) + "lock";
    }

    /** The item's fencing counter (redis-lock): last fencing token issued. */
    public static String fence(String sku) {
        return prefix(sku) + "fence";
    }
}
