package io.flashstock.deduction.lua;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.flashstock.redis.RedisKeys;
import io.flashstock.support.KeyFilter;
import io.quarkus.redis.datasource.RedisDataSource;
import io.vertx.mutiny.redis.client.Response;
import io.vertx.redis.client.ResponseType;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * An item's stream of acknowledged orders not yet in MySQL ({@link RedisKeys#orders}), written by the purchase
 * script and read through the consumer group {@value #GROUP}: whoever persists an entry first takes it (a relay by
 * XREADGROUP or XAUTOCLAIM, a write-through request at purchase time), so an undo can never take back an entry that
 * another consumer is persisting, and no relay reads an entry that was taken back. Entries leave the stream only once
 * their order is in MySQL ({@link #settle}) or the purchase was taken back ({@link #undo}): a pending order is never
 * lost while Redis keeps its data. Idle times are Redis's own (XAUTOCLAIM), never a pod's clock.
 */
@ApplicationScoped
public class PendingStream {

    /** The consumer group every reader of the pending streams belongs to. */
    static final String GROUP = "relay";
    /** The one field of an entry the purchase script writes ({@link #packed}). */
    static final String PACKED = "o";
    /** How long a tombstone outlives the purchase it stops: longer than any command can wait in a queue. */
    static final long VOID_TTL_SECONDS = 600;

    /** What an undo did. */
    public enum Undo {
        /** Taken back: units returned (or dropped), the entry gone. */
        UNDONE,
        /** The purchase never ran: a tombstone stopped it, or it left no trace. */
        NEVER_RAN,
        /** The entry was gone: persisted, or taken back before. */
        GONE,
        /** Another consumer holds the entry: it is being persisted. */
        HELD_ELSEWHERE,
        /**
         * The caller gave up on its call, but a repeat of the request with its Idempotency-Key was answered 201 with
         * the order already (write-behind): the order stands, and the relays persist it.
         */
        ANSWERED;

        static Undo of(long reply) {
            return switch ((int) reply) {
                case 1 -> UNDONE;
                case 2 -> NEVER_RAN;
                case -1 -> HELD_ELSEWHERE;
                case -2 -> ANSWERED;
                default -> GONE;
            };
        }
    }

    private final RedisDataSource redis;
    private final HotStockScripts scripts;

    PendingStream(RedisDataSource redis, HotStockScripts scripts) {
        this.redis = redis;
        this.scripts = scripts;
    }

    /** Whether the item has no pending entry (also when it has no stream). */
    public boolean isEmpty(String sku) {
        return length(sku) == 0;
    }

    /** How many of the item's orders are in its stream: acknowledged (or being decided), maybe not in MySQL yet. */
    public long length(String sku) {
        return redis.stream(String.class).xlen(RedisKeys.orders(sku));
    }

    /** Whether the item holds {@code orderId} as a RESERVED order (acknowledged, maybe not in MySQL yet). */
    public boolean holds(String sku, String orderId) {
        return redis.hash(String.class).hexists(RedisKeys.held(sku), orderId);
    }

    /**
     * The Idempotency-Keys (with their users) of the item's entries not yet in MySQL, as {@link KeyFilter#entry}s: one
     * XRANGE over the stream, which write-behind bounds by {@code flashstock.lua.max-pending}.
     */
    public List<String> pendingKeys(String sku) {
        Response entries = redis.execute("XRANGE", RedisKeys.orders(sku), "-", "+");
        List<String> keys = new ArrayList<>();
        for (PendingOrder order : entries(sku, entries)) {
            if (order.idempotencyKey() != null) {
                keys.add(KeyFilter.entry(order.userId(), order.idempotencyKey()));
            }
        }
        return keys;
    }

    /** Entries nobody has read yet, now held by {@code consumer}. */
    public List<PendingOrder> readNew(String sku, String consumer, int count) {
        return read(sku, consumer, count, ">");
    }

    /** Entries {@code consumer} holds already (read in a round that failed before settling them). */
    public List<PendingOrder> readHeld(String sku, String consumer, int count) {
        return read(sku, consumer, count, "0");
    }

    /**
     * Entries held unsettled for at least {@code minIdleMillis} by Redis's clock, whoever holds them (a crashed pod,
     * a write-through request that died), now held by {@code consumer}.
     */
    public List<PendingOrder> claimIdle(String sku, String consumer, long minIdleMillis, int count) {
        Response reply = redis.execute("XAUTOCLAIM", RedisKeys.orders(sku), GROUP, consumer,
                Long.toString(minIdleMillis), "0-0", "COUNT", Integer.toString(count));
        return reply == null ? List.of() : entries(sku, reply.get(1));
    }

    private List<PendingOrder> read(String sku, String consumer, int count, String from) {
        Response reply = redis.execute("XREADGROUP", "GROUP", GROUP, consumer, "COUNT", Integer.toString(count),
                "STREAMS", RedisKeys.orders(sku), from);
        if (reply == null || reply.size() == 0) {
            return List.of();
        }
        String key = RedisKeys.orders(sku);
        // RESP3 answers a map of stream key to entries, RESP2 an array of [key, entries] pairs.
        return entries(sku, reply.type() == ResponseType.MULTI && reply.containsKey(key) ? reply.get(key)
                : reply.get(0).get(1));
    }

    private static List<PendingOrder> entries(String sku, Response entries) {
        List<PendingOrder> orders = new ArrayList<>(entries == null ? 0 : entries.size());
        if (entries == null) {
            return orders;
        }
        for (Response entry : entries) {
            Response values = entry.get(1);
            if (values == null || values.size() == 0) {
                continue; // deleted meanwhile (taken back)
            }
            String entryId = entry.get(0).toString();
            orders.add(values.size() == 2 && PACKED.equals(values.get(0).toString())
                    ? packed(entryId, sku, values.get(1).toString())
                    : fields(entryId, sku, values));
        }
        return orders;
    }

    /**
     * An entry as {@code lua/purchase_rules.lua} writes it: one field {@value #PACKED}, "orderId userId quantity
     * createdAt expiresAt fingerprint Idempotency-Key pod epoch cart", one space between values, the last five
     * possibly empty.
     */
    static PendingOrder packed(String entryId, String sku, String packed) {
        String[] v = packed.split(" ", -1);
        if (v.length != 10) {
            throw new IllegalStateException("pending order entry " + entryId + " has " + v.length + " values, not 10");
        }
        return new PendingOrder(entryId, v[0], sku, v[1], Integer.parseInt(v[2]), emptyToNull(v[6]),
                emptyToNull(v[5]), Instant.ofEpochSecond(Long.parseLong(v[3])),
                Instant.ofEpochSecond(Long.parseLong(v[4])), v[7], v[8], emptyToNull(v[9]));
    }

    /** An entry written by an older pod, one field per value (still read during and after a rolling upgrade). */
    private static PendingOrder fields(String entryId, String sku, Response values) {
        Map<String, String> fields = new HashMap<>();
        for (int i = 0; i + 1 < values.size(); i += 2) {
            fields.put(values.get(i).toString(), values.get(i + 1).toString());
        }
        return new PendingOrder(entryId, fields.get("id"), sku, fields.get("user"), Integer.parseInt(fields.get("qty")),
                emptyToNull(fields.get("key")), emptyToNull(fields.get("fp")),
                Instant.ofEpochSecond(Long.parseLong(fields.get("created"))),
                Instant.ofEpochSecond(Long.parseLong(fields.get("expires"))), fields.get("pod"),
                fields.getOrDefault("ep", ""), emptyToNull(fields.get("cart")));
    }

    /**
     * After a MySQL commit: the entries of orders now in MySQL leave the stream (acknowledged and deleted in one
     * step), and the hot stock takes in the {@code inserted} orders it does not count (acknowledged before Redis lost
     * its data, committed after the snapshot it was re-warmed from: {@code lua/settle_entries.lua}).
     *
     * @param version the item's MySQL version right after the commit that inserted {@code inserted} (0: none)
     */
    public void settle(String sku, List<String> entryIds, List<PendingOrder> inserted, long version) {
        if (entryIds.isEmpty() && inserted.isEmpty()) {
            return;
        }
        List<String> keys = List.of(RedisKeys.orders(sku), RedisKeys.stock(sku), RedisKeys.held(sku),
                RedisKeys.users(sku), RedisKeys.late(sku), RedisKeys.left(sku));
        List<String> args = new ArrayList<>(3 + entryIds.size() + 4 * inserted.size());
        args.add(Long.toString(inserted.isEmpty() ? 0 : version));
        args.add(Integer.toString(entryIds.size()));
        args.addAll(entryIds);
        if (!inserted.isEmpty()) {
            // First the orders' epochs alone: the orders go only if the hot stock may have one to take in (-1).
            int orders = args.size();
            args.add("?");
            inserted.stream().map(PendingOrder::epoch).distinct().forEach(args::add);
            if (scripts.settleEntries.run(redis, keys, args).toLong() != -1) {
                return;
            }
            args.subList(orders, args.size()).clear();
            for (PendingOrder order : inserted) {
                args.addAll(List.of(order.orderId(), order.userId(), Integer.toString(order.quantity()),
                        order.epoch()));
            }
        }
        scripts.settleEntries.run(redis, keys, args);
    }

    /**
     * Takes back a purchase whose order did not reach MySQL, unless another consumer than {@code consumer} holds its
     * entry: {@code returnUnits} puts the units back to available (MySQL unreachable, or the order duplicated another
     * one's Idempotency-Key); otherwise they leave Redis's stock (MySQL refused them: Redis's counters were too high).
     */
    public Undo undo(PendingOrder order, boolean returnUnits, String consumer) {
        return undo(order.sku(), order.orderId(), order.userId(), order.idempotencyKey(), order.entryId(), returnUnits,
                consumer);
    }

    /**
     * Gives back a line of an ABORTED cart ({@link Carts}), whoever holds its entry: nobody persists the lines of an
     * aborted cart, and the script's XDEL makes each give-back happen once.
     */
    public Undo undoLine(String sku, String orderId, String entryId) {
        return undo(sku, orderId, null, null, entryId, true, "");
    }

    /**
     * Takes back a line of a cart MySQL refused for want of its item's units ({@link Carts#persist}), whoever holds its
     * entry: its units leave Redis's stock, as a refused single order's do ({@link #undo}).
     */
    public Undo dropLine(String sku, String orderId, String entryId) {
        return undo(sku, orderId, null, null, entryId, false, "");
    }

    /**
     * The caller gave up on a purchase it does not know the outcome of (Redis timed out): a tombstone keeps the
     * purchase from running if it is still queued, and if it ran, it is taken back unless a relay holds its entry.
     */
    public Undo abandon(String sku, String orderId, String userId, String idempotencyKey, String consumer) {
        return undo(sku, orderId, userId, idempotencyKey, "", true, consumer);
    }

    private Undo undo(String sku, String orderId, String userId, String idempotencyKey, String entryId,
            boolean returnUnits, String consumer) {
        return Undo.of(scripts.undoPurchase.run(redis,
                List.of(RedisKeys.stock(sku), RedisKeys.users(sku), RedisKeys.held(sku), RedisKeys.orders(sku),
                        RedisKeys.idempotency(sku, userId, idempotencyKey), RedisKeys.voided(sku, orderId),
                        RedisKeys.legacyIdempotency(sku, idempotencyKey)),
                List.of(orderId, entryId, returnUnits ? "RETURN" : "DROP", Long.toString(VOID_TTL_SECONDS), consumer,
                        RedisKeys.unitsBackChannel()))
                .toLong());
    }

    private static String emptyToNull(String value) {
        return value == null || value.isEmpty() ? null : value;
    }
}
