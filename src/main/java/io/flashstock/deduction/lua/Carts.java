package io.flashstock.deduction.lua;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.deduction.CartCommand;
import io.flashstock.deduction.lua.PendingOrderWriter.Outcome;
import io.flashstock.order.Purchase;
import io.flashstock.redis.RedisKeys;
import io.quarkus.redis.datasource.RedisDataSource;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Multi-item purchases of {@code redis-lua} (docs/multi-item-purchases.md). A cart's lines may sit on different
 * Redis Cluster shards, so no script can take them all at once. Instead each cart has one decision record in its
 * user's slot ({@code lua/cart_open.lua}, {@code lua/cart_decide.lua}), decided once by compare-and-set from PENDING
 * (a COMMITTED cart MySQL refuses is ABORTED after all, once, by compare-and-set from COMMITTED):
 * <ul>
 * <li>each line is an ordinary purchase ({@code lua/purchase.lua}) whose stream entry names the cart; no relay ever
 * persists such an entry alone;</li>
 * <li>COMMITTED (the request, once every line holds its units): the purchase and all its lines go into MySQL in one
 * transaction ({@link #persist}), by the request (write-through) or by whichever relay meets a line first;</li>
 * <li>ABORTED (the request, on a refusal; or any relay, for a cart still PENDING past its deadline because its
 * request died): each line is given back once ({@code lua/undo_purchase.lua} deletes the entry and returns the units
 * in one step).</li>
 * </ul>
 * So MySQL never holds part of a purchase, and a crashed cart's units come back within {@code cart-decide-within}
 * plus one relay round (write-through: {@code claim-after}, after which relays take over a dead request's entries).
 */
@ApplicationScoped
public class Carts {

    private static final Logger LOG = Logger.getLogger(Carts.class);
    /** Least lifetime of a COMMITTED decision record not yet in MySQL ({@link #committedTtlSeconds}). */
    static final Duration COMMITTED_RECORD_TTL = Duration.ofDays(7);

    /** A decision record's state; {@code MISSING}: there is none (it expired, or Redis lost it). */
    public enum State {
        PENDING, COMMITTED, ABORTED, MISSING
    }

    /** What opening a cart found: {@code OK}, {@code REPLAY} of {@code purchaseId}, or {@code KEY_REUSED}. */
    public record Opened(String reply, String purchaseId) {
    }

    private final RedisDataSource redis;
    private final HotStockScripts scripts;
    private final PendingStream stream;
    private final PendingOrderWriter writer;
    private final Checkpoints checkpoints;
    private final long decideWithinMillis;
    private final long keyTtlSeconds;
    /**
     * How long a COMMITTED record lives until its cart is in MySQL: far beyond any MySQL outage, since an expired
     * record would make its acknowledged cart be given back (write-behind). Once stored, the record is brought back
     * to the Idempotency-Key's TTL.
     */
    private final long committedTtlSeconds;
    /**
     * How long an ABORTED record lives at most: while a line of its cart may still wait in a stream for a relay (its
     * request died before giving it back: {@code cart-decide-within}, then {@code claim-after} idle, twice over for
     * the relay rounds). Not the Idempotency-Key's 24 h: every refused cart would leave its record that long, and a
     * caller could grow Redis with carts of made-up skus. A line met later finds no record and is given back unless
     * MySQL has its purchase, which an ABORTED cart's never is. A key-less cart's record, once the cart is stored,
     * lives as long: nothing replays it, and only a line left in a stream may still look for it.
     */
    private final long abortedTtlSeconds;

    Carts(RedisDataSource redis, HotStockScripts scripts, PendingStream stream, PendingOrderWriter writer,
            Checkpoints checkpoints, FlashstockConfig config) {
        this.redis = redis;
        this.checkpoints = checkpoints;
        this.scripts = scripts;
        this.stream = stream;
        this.writer = writer;
        this.decideWithinMillis = config.lua().cartDecideWithin().toMillis();
        this.keyTtlSeconds = Math.max(1, config.lua().idempotencyTtl().toSeconds());
        this.committedTtlSeconds = Math.max(keyTtlSeconds, COMMITTED_RECORD_TTL.toSeconds());
        this.abortedTtlSeconds = Math.max(1,
                config.lua().cartDecideWithin().plus(config.lua().claimAfter().multipliedBy(2)).toSeconds());
    }

    /** Claims the cart's Idempotency-Key (if any) and opens its PENDING decision record, atomically. */
    public Opened open(CartCommand cart, String purchaseId) {
        Response reply = scripts.cartOpen.run(redis, List.of(RedisKeys.cart(cart.userId(), purchaseId),
                RedisKeys.cartIdempotency(cart.userId(), cart.idempotencyKey())),
                List.of(purchaseId, orEmpty(cart.fingerprint()), Long.toString(decideWithinMillis),
                        Long.toString(keyTtlSeconds), Long.toString(keyTtlSeconds), cart.userId(),
                        orEmpty(cart.idempotencyKey())));
        return new Opened(reply.get(0).toString(), reply.size() > 1 ? reply.get(1).toString() : null);
    }

    /** Decides COMMITTED with every line, unless the cart was decided before (a relay aborted it past its deadline). */
    public State commit(CommittedCart cart) {
        return decide(cart.userId(), cart.purchaseId(), cart.idempotencyKey(), List.of("COMMITTED", cart.purchaseId(),
                Long.toString(cart.createdAt().getEpochSecond()), Long.toString(cart.expiresAt().getEpochSecond()),
                orEmpty(cart.fingerprint()),
                cart.lines().stream().map(CartLine::encode).collect(Collectors.joining(",")),
                Long.toString(committedTtlSeconds)));
    }

    /**
     * The request gives up on its cart (a refusal, or a failure on the way): ABORTED, then each line it reserved
     * given back. When Redis cannot be reached for this, the cart stays PENDING and a relay aborts it past its
     * deadline, giving back every line it finds.
     */
    public void abandon(String userId, String purchaseId, String idempotencyKey, List<CartLine> reserved) {
        try {
            State state = decide(userId, purchaseId, idempotencyKey, List.of("ABORTED", purchaseId,
                    Long.toString(abortedTtlSeconds)));
            if (state == State.ABORTED) {
                checkpoints.passed(Checkpoints.Step.CART_ABORTED);
                giveBack(reserved);
            }
        } catch (RuntimeException e) {
            LOG.warnf("Could not abort cart %s now; a relay gives its lines back after its deadline: %s", purchaseId,
                    e.toString());
        }
    }

    /** Gives back lines of an ABORTED cart; each once, whoever else gives them back too. */
    public void giveBack(List<CartLine> lines) {
        for (CartLine line : lines) {
            stream.undoLine(line.sku(), line.orderId(), line.entryId());
        }
    }

    /** The cart's record when it is COMMITTED, else {@code null}. */
    public CommittedCart committed(String userId, String purchaseId) {
        Map<String, String> fields = redis.hash(String.class).hgetall(RedisKeys.cart(userId, purchaseId));
        if (!"COMMITTED".equals(fields.get("state"))) {
            return null;
        }
        List<CartLine> lines = Arrays.stream(fields.get("lines").split(",")).map(CartLine::decode).toList();
        return new CommittedCart(purchaseId, userId, emptyToNull(fields.get("key")), emptyToNull(fields.get("fp")),
                Instant.ofEpochSecond(Long.parseLong(fields.get("created"))),
                Instant.ofEpochSecond(Long.parseLong(fields.get("expires"))), lines);
    }

    /**
     * Persists a COMMITTED cart: the purchase and all its lines in one MySQL transaction (or found there already),
     * then every line's entry leaves its item's stream. A cart MySQL refuses is ABORTED and its lines taken back: its
     * Idempotency-Key taken by another purchase, which Redis had forgotten, gives every line's units back; units MySQL
     * has not (Redis had stale, too high stock) leave Redis's stock for the line MySQL was short of, as a refused
     * order's do, and come back for the others. Throws when MySQL cannot be reached, or when the refusal cannot be
     * recorded in Redis (the record stays COMMITTED): the entries stay, the lines keep their units, and the next relay
     * round that meets one tries again. Once the cart is stored, a failure to remove its entries from Redis is left to
     * the relays: the answer is the stored cart.
     */
    public PendingOrderWriter.CartWrite persist(CommittedCart cart) {
        Purchase purchase = new Purchase();
        purchase.id = cart.purchaseId();
        purchase.userId = cart.userId();
        purchase.lines = cart.lines().size();
        purchase.idempotencyKey = cart.idempotencyKey();
        purchase.requestFingerprint = cart.fingerprint();
        purchase.createdAt = cart.createdAt();
        purchase.expiresAt = cart.expiresAt();
        List<PendingOrder> orders = cart.orders();
        PendingOrderWriter.CartWrite written = writer.persistCart(purchase, orders);
        switch (written.outcome()) {
            case INSERTED, PRESENT -> {
                for (PendingOrder order : orders) {
                    boolean inserted = written.outcome() == Outcome.INSERTED;
                    try {
                        stream.settle(order.sku(), List.of(order.entryId()), inserted ? List.of(order) : List.of(),
                                inserted ? written.versions().get(order.sku()) : 0);
                    } catch (RuntimeException e) {
                        // The cart is in MySQL: a relay claims the idle entry after claim-after, finds the cart
                        // PRESENT and settles it. Not a reason to answer anything but the stored cart.
                        LOG.debugf("Could not remove the persisted entry %s of cart %s now: %s", order.entryId(),
                                cart.purchaseId(), e.toString());
                    }
                }
            }
            default -> {
                // First: a relay meeting a line of the ABORTED cart takes it back, if this writer cannot, and drops
                // the short line as this one would (the record names it). Not recorded: nothing is taken back.
                refused(cart, written.shortSku());
                LOG.warnf("Cart %s was refused by MySQL (%s); its %d line(s) are taken back%s", cart.purchaseId(),
                        written.outcome(), orders.size(), written.shortSku() == null ? ""
                                : ", the units of " + written.shortSku() + " out of the hot stock");
                checkpoints.passed(Checkpoints.Step.CART_REFUSED);
                for (CartLine line : cart.lines()) {
                    takeBack(line.sku(), line.orderId(), line.entryId(), written.shortSku());
                }
                return written;
            }
        }
        settled(cart);
        return written;
    }

    /**
     * MySQL refused the COMMITTED cart: ABORTED after all, its Idempotency-Key released, so that no replay answers 201
     * with orders MySQL does not have and a retry runs anew. Its lines are given back after this. Throws when Redis
     * cannot record it: then the lines must not be given back, or the record would stay COMMITTED over lines nobody
     * holds, and a retry with its key would be answered from it (a 201 replay of orders MySQL lacks in write-behind,
     * 409 request-in-progress in write-through) for the key's life. Left COMMITTED with its lines, the cart is met
     * again by a relay, refused by MySQL again, and aborted then.
     */
    private void refused(CommittedCart cart, String shortSku) {
        try {
            decide(cart.userId(), cart.purchaseId(), cart.idempotencyKey(), List.of("REFUSED", cart.purchaseId(),
                    Long.toString(abortedTtlSeconds), orEmpty(shortSku)));
        } catch (RuntimeException e) {
            LOG.warnf("MySQL refused cart %s but Redis could not record it; its lines stay until a relay retries: %s",
                    cart.purchaseId(), e.toString());
            throw e;
        }
    }

    /**
     * The cart is decided for good in MySQL: its record lives as long as its Idempotency-Key again, or, for a key-less
     * cart, only while a line of it may still wait in a stream. Before, every key-less cart left its record for the
     * key's 24 h, so Redis grew with a day's carts.
     */
    private void settled(CommittedCart cart) {
        long ttl = cart.idempotencyKey() == null ? abortedTtlSeconds : keyTtlSeconds;
        try {
            redis.key().expire(RedisKeys.cart(cart.userId(), cart.purchaseId()), ttl);
        } catch (RuntimeException e) {
            LOG.debugf("Record of cart %s keeps its long TTL: %s", cart.purchaseId(), e.toString());
        }
    }

    /**
     * A relay met a line of a cart in an item's stream: persists the whole cart if it is COMMITTED, gives the line
     * back if the cart was ABORTED (or is past its deadline, which aborts it now), leaves it while the cart is
     * PENDING. A line whose record is gone stands if MySQL has its purchase, else it is given back (the record's
     * shard lost its data: write-behind's bounded loss). Returns whether the line was decided.
     */
    public boolean resolve(PendingOrder line) {
        switch (abortIfDue(line.userId(), line.cart())) {
            case PENDING -> {
                return false;
            }
            case COMMITTED -> {
                CommittedCart cart = committed(line.userId(), line.cart());
                if (cart != null) {
                    persist(cart);
                    return true;
                }
                return false;
            }
            case ABORTED -> takeBack(line.sku(), line.orderId(), line.entryId(), redis.hash(String.class)
                    .hget(RedisKeys.cart(line.userId(), line.cart()), "short"));
            case MISSING -> {
                if (writer.purchaseStored(line.cart())) {
                    stream.settle(line.sku(), List.of(line.entryId()), List.of(), 0);
                } else {
                    LOG.warnf("Line %s of cart %s has no decision record and no purchase in MySQL; given back",
                            line.orderId(), line.cart());
                    stream.undoLine(line.sku(), line.orderId(), line.entryId());
                }
            }
        }
        return true;
    }

    /**
     * Takes back a line of an ABORTED cart, once, whoever else does too: the line of the item MySQL was short of
     * ({@code shortSku}, when MySQL refused the cart for want of its units) leaves Redis's stock, as a refused order's
     * units do; any other comes back as available.
     */
    private void takeBack(String sku, String orderId, String entryId, String shortSku) {
        if (sku.equals(shortSku)) {
            stream.dropLine(sku, orderId, entryId);
        } else {
            stream.undoLine(sku, orderId, entryId);
        }
    }

    /**
     * Aborts the cart if it is still PENDING past its deadline (its request died after opening it), which also
     * releases its Idempotency-Key. Returns its state afterwards.
     */
    public State abortIfDue(String userId, String purchaseId) {
        String key = redis.hash(String.class).hget(RedisKeys.cart(userId, purchaseId), "key");
        return decide(userId, purchaseId, emptyToNull(key), List.of("ABORTED_IF_DUE", purchaseId,
                Long.toString(abortedTtlSeconds)));
    }

    private State decide(String userId, String purchaseId, String idempotencyKey, List<String> args) {
        Response reply = scripts.cartDecide.run(redis, List.of(RedisKeys.cart(userId, purchaseId),
                RedisKeys.cartIdempotency(userId, idempotencyKey)), args);
        return State.valueOf(reply.get(0).toString());
    }

    private static String orEmpty(String value) {
        return value == null ? "" : value;
    }

    private static String emptyToNull(String value) {
        return value == null || value.isEmpty() ? null : value;
    }
}
