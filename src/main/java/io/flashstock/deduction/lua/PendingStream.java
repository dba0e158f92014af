package io.flashstock.deduction.lua;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.flashstock.redis.RedisKeys;
import io.quarkus.redis.datasource.RedisDataSource;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * An item's stream of acknowledged orders not yet in MySQL ({@link RedisKeys#orders}), written by the purchase
 * script. Entries leave it only once their order is in MySQL ({@link #remove}) or the purchase was taken back
 * ({@link #undo}, which also returns the units): so a pending order is never lost while Redis keeps its data.
 */
@ApplicationScoped
public class PendingStream {

    /** How long a tombstone outlives the purchase it stops: longer than any command can wait in a queue. */
    static final long VOID_TTL_SECONDS = 600;

    private final RedisDataSource redis;
    private final HotStockScripts scripts;

    PendingStream(RedisDataSource redis, HotStockScripts scripts) {
        this.redis = redis;
        this.scripts = scripts;
    }

    /** The oldest {@code count} pending orders of the item. */
    public List<PendingOrder> oldest(String sku, int count) {
        Response entries = redis.execute("XRANGE", RedisKeys.orders(sku), "-", "+", "COUNT", Integer.toString(count));
        List<PendingOrder> orders = new ArrayList<>(entries.size());
        for (Response entry : entries) {
            Map<String, String> fields = new HashMap<>();
            Response values = entry.get(1);
            for (int i = 0; i + 1 < values.size(); i += 2) {
                fields.put(values.get(i).toString(), values.get(i + 1).toString());
            }
            orders.add(new PendingOrder(entry.get(0).toString(), fields.get("id"), sku, fields.get("user"),
                    Integer.parseInt(fields.get("qty")), emptyToNull(fields.get("key")), emptyToNull(fields.get("fp")),
                    Instant.ofEpochSecond(Long.parseLong(fields.get("created"))),
                    Instant.ofEpochSecond(Long.parseLong(fields.get("expires"))), fields.get("pod")));
        }
        return orders;
    }

    /** Redis's own clock (TIME), in milliseconds: the clock that stamped the entry ids. */
    public long redisTimeMillis() {
        Response time = redis.execute("TIME");
        return time.get(0).toLong() * 1000 + time.get(1).toLong() / 1000;
    }

    /** Removes entries whose orders are in MySQL now. */
    public void remove(String sku, List<String> entryIds) {
        if (entryIds.isEmpty()) {
            return;
        }
        String[] args = new String[entryIds.size() + 1];
        args[0] = RedisKeys.orders(sku);
        for (int i = 0; i < entryIds.size(); i++) {
            args[i + 1] = entryIds.get(i);
        }
        redis.execute("XDEL", args);
    }

    /**
     * Takes back a purchase whose order did not reach MySQL: {@code returnUnits} puts the units back to available
     * (MySQL unreachable, or the order duplicated another one's Idempotency-Key); otherwise they leave Redis's stock
     * (MySQL refused them: Redis's counters were too high). Returns false when the entry was gone already: someone
     * else persisted or took back the order.
     */
    public boolean undo(PendingOrder order, boolean returnUnits) {
        return undo(order.sku(), order.orderId(), order.idempotencyKey(), order.entryId(), returnUnits);
    }

    /**
     * The caller gave up on a purchase it does not know the outcome of (Redis timed out): a tombstone keeps the
     * purchase from running if it is still queued, and if it ran, it is taken back while its order is pending.
     * Returns whether a purchase was taken back.
     */
    public boolean abandon(String sku, String orderId, String idempotencyKey) {
        return undo(sku, orderId, idempotencyKey, "", true);
    }

    private boolean undo(String sku, String orderId, String idempotencyKey, String entryId, boolean returnUnits) {
        return scripts.undoPurchase.run(redis,
                List.of(RedisKeys.stock(sku), RedisKeys.users(sku), RedisKeys.held(sku), RedisKeys.orders(sku),
                        RedisKeys.idempotency(sku, idempotencyKey), RedisKeys.voided(sku, orderId)),
                List.of(orderId, entryId, returnUnits ? "RETURN" : "DROP", Long.toString(VOID_TTL_SECONDS)))
                .toLong() == 1;
    }

    private static String emptyToNull(String value) {
        return value == null || value.isEmpty() ? null : value;
    }
}
