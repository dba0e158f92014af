package io.flashstock.deduction.lua;

import java.time.Instant;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.deduction.PurchaseCommand;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.ProblemCode;
import io.flashstock.error.UnavailableException;
import io.flashstock.redis.RedisKeys;
import io.flashstock.support.Causes;
import io.flashstock.support.Workers;
import io.quarkus.redis.datasource.RedisDataSource;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * The purchase against the Redis hot stock of {@code redis-lua}: one hash of counters per item
 * ({@link RedisKeys#stock}), the item's RESERVED orders and per-user units, and its stream of orders not yet in
 * MySQL, all changed atomically by {@code lua/purchase.lua}. An item without a hash is warmed on the spot
 * ({@link HotStockWarmer}), unless Redis lost its data, in which case the pod fails closed until re-warmed.
 */
@ApplicationScoped
public class HotStock {

    private static final Logger LOG = Logger.getLogger(HotStock.class);

    private final RedisDataSource redis;
    /** The non-blocking purchase calls, several purchases of an item in one when they wait together. */
    private final PurchaseCombiner combiner;
    private final HotStockWarmer warmer;
    private final HotStockScripts scripts;
    private final ActiveItems items;
    private final PendingStream stream;
    private final PodIdentity pod;
    private final long idempotencyTtlSeconds;
    /** Write-through: the request takes its stream entry at purchase time (see {@code lua/purchase.lua}). */
    private final String claim;
    private final String maxPending;

    HotStock(RedisDataSource redis, PurchaseCombiner combiner, HotStockWarmer warmer, HotStockScripts scripts, ActiveItems items, PendingStream stream, PodIdentity pod, FlashstockConfig config) {
        this.redis = redis;
        this.combiner = combiner;
        this.warmer = warmer;
        this.scripts = scripts;
        this.items = items;
        this.stream = stream;
        this.pod = pod;
        this.idempotencyTtlSeconds = Math.max(1, config.lua().idempotencyTtl().toSeconds());
        boolean writeThrough = config.lua().persistence() == FlashstockConfig.Persistence.WRITE_THROUGH;
        this.claim = writeThrough ? "OWN" : "";
        this.maxPending = writeThrough ? "0" : Integer.toString(config.lua().maxPending());
    }

    /**
     * What the purchase script decided, with what the reply carries for it; {@code available} and {@code seq} are the
     * item's counter and change number after an {@code OK} or {@code SOLD_OUT} (else -1); {@code limit} the user's
     * limit ({@code LIMIT}) or the milliseconds to the sale's start ({@code NOT_STARTED}).
     */
    public record Decision(PurchaseReply reply, String entryId, String orderId, Instant createdAt, Instant expiresAt,
            long limit, String epoch, int available, long seq) {

        static Decision of(PurchaseReply reply) {
            return new Decision(reply, null, null, null, null, 0, null, -1, -1);
        }

        /** Units were taken: an order was left to persist, and its item's rounds must look at it. */
        boolean tookUnits() {
            return reply == PurchaseReply.OK;
        }

        /** The item's hot stock is missing or of another generation: warm it, then ask again. */
        boolean needsWarming() {
            return reply == PurchaseReply.COLD || reply == PurchaseReply.STALE;
        }
    }

    /**
     * Runs the purchase script for a new order id. An item without a hot stock, or of an older generation, is warmed
     * from MySQL first. Redis unreachable or not ready → {@link UnavailableException}.
     */
    public Decision purchase(PurchaseCommand command, String orderId, Instant createdAt, Instant expiresAt) {
        return purchase(command, orderId, createdAt, expiresAt, null);
    }

    /**
     * {@link #purchase(PurchaseCommand, String, Instant, Instant)} of a line of the cart {@code cart} (its purchase
     * id; {@code null}: a single purchase). A line's entry is never persisted alone ({@link Carts}).
     */
    public Decision purchase(PurchaseCommand command, String orderId, Instant createdAt, Instant expiresAt,
            String cart) {
        return touching(command.sku(), () -> warmedIfNeeded(command, orderId, createdAt, expiresAt, cart,
                decide(command, orderId, createdAt, expiresAt, cart)));
    }

    /**
     * Runs a script call of the item, then records the item as active ({@link ActiveItems#touch}) so that every pod's
     * rounds look at it when the call may have left an order to persist: it took units, or its outcome is unknown (it
     * failed, its script may have run, and voiding it could not tell). A refusal leaves nothing to persist and makes no
     * item active: refused purchases of every item of a catalog cost each pod's rounds nothing afterwards. Neither does
     * a failure known to have changed nothing (a warm-up MySQL could not answer, a call voided before it ran or taken
     * back), so a made-up sku leaves nothing behind while MySQL or Redis falters either.
     */
    private Decision touching(String sku, Supplier<Decision> call) {
        boolean mayHaveTaken = true;
        try {
            Decision decision = call.get();
            mayHaveTaken = decision.tookUnits();
            return decision;
        } catch (FlashstockException e) {
            mayHaveTaken = e.code() == ProblemCode.OUTCOME_UNKNOWN;
            throw e;
        } finally {
            if (mayHaveTaken) {
                items.touch(sku);
            }
        }
    }

    /**
     * {@link #purchase(PurchaseCommand, String, Instant, Instant)} without blocking, for a purchase on the event loop:
     * {@code answer} is told the decision, or the failure, once, on the purchase's event loop as the script's reply
     * comes. What needs a blocking call continues on a worker thread and is told from there: an item to warm from
     * MySQL first, and a call that failed or timed out (voided as in the blocking path, {@link #abandoned}).
     * {@code answer} must not throw.
     *
     * @return what cancels the purchase while it waits to be sent ({@link PurchaseCombiner#decide})
     */
    public Runnable purchaseAsync(PurchaseCommand command, String orderId, Instant createdAt, Instant expiresAt,
            BiConsumer<Decision, Throwable> answer) {
        String generation = warmer.generation();
        if (generation == null) {
            answer.accept(null, coldAnswer());
            return () -> {
            };
        }
        return combiner.decide(command.sku(), purchaseKeys(command, orderId),
                purchaseArgs(command, orderId, createdAt, expiresAt, null, generation), (reply, failure) -> {
                    if (failure instanceof PurchaseCombiner.NotSent) { // it never reached Redis
                        answer.accept(null, new UnavailableException(
                                "The hot stock did not answer in time; nothing was changed, try again.", failure));
                    } else if (failure != null) { // the script may have run: voided, its item made active unless known
                        onWorker(() -> touching(command.sku(), () -> {
                            throw abandoned(command, orderId, Causes.unchecked(failure));
                        }), answer);
                    } else {
                        decided(command, orderId, createdAt, expiresAt, reply, answer);
                    }
                });
    }

    /** The script's reply to a purchase on the event loop, told to {@code answer}: see {@link #purchaseAsync}. */
    private void decided(PurchaseCommand command, String orderId, Instant createdAt, Instant expiresAt,
            ScriptAnswer reply, BiConsumer<Decision, Throwable> answer) {
        Decision decision;
        try {
            decision = parse(reply, orderId, createdAt);
            if (decision.tookUnits()) {
                items.touch(command.sku());
            }
        } catch (RuntimeException e) {
            answer.accept(null, e);
            return;
        }
        if (decision.needsWarming()) {
            onWorker(() -> touching(command.sku(),
                    () -> warmedIfNeeded(command, orderId, createdAt, expiresAt, null, decision)), answer);
        } else {
            answer.accept(decision, null);
        }
    }

    private static <T> void onWorker(Supplier<T> work, BiConsumer<T, Throwable> answer) {
        Workers.call(work).subscribe().with(item -> answer.accept(item, null), failure -> answer.accept(null, failure));
    }

    /** The decision, or (the item missing or stale) the item warmed and asked again; twice, for a changing generation. */
    private Decision warmedIfNeeded(PurchaseCommand command, String orderId, Instant createdAt, Instant expiresAt,
            String cart, Decision first) {
        Decision decision = first;
        for (int attempt = 0; attempt < 2 && decision.needsWarming(); attempt++) {
            prepare(command.sku());
            decision = decide(command, orderId, createdAt, expiresAt, cart);
        }
        if (decision.needsWarming()) {
            throw coldAnswer();
        }
        return decision;
    }

    /**
     * Warms the item's hot stock if it is missing or of an older generation ({@link HotStockWarmer#prepare}).
     *
     * @throws FlashstockException item-not-found for an unknown sku, unavailable when it cannot be done now
     */
    public void prepare(String sku) {
        try {
            warmer.prepare(sku);
        } catch (FlashstockException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new UnavailableException("The hot stock cannot be rebuilt now; nothing was changed, try again.", e);
        }
    }

    /** Whether an item hash of generation {@code itemGeneration} is usable by this pod. */
    boolean isCurrent(String itemGeneration) {
        return itemGeneration != null && itemGeneration.equals(warmer.generation());
    }

    private Decision decide(PurchaseCommand command, String orderId, Instant createdAt, Instant expiresAt,
            String cart) {
        String generation = warmer.generation();
        if (generation == null) {
            throw coldAnswer();
        }
        Response reply;
        try {
            reply = scripts.purchase.run(redis, purchaseKeys(command, orderId),
                    purchaseArgs(command, orderId, createdAt, expiresAt, cart, generation));
        } catch (RuntimeException e) {
            throw abandoned(command, orderId, e);
        }
        return parse(ScriptAnswer.single(reply), orderId, createdAt);
    }

    static List<String> purchaseKeys(PurchaseCommand command, String orderId) {
        String sku = command.sku();
        return List.of(RedisKeys.stock(sku), RedisKeys.users(sku), RedisKeys.held(sku), RedisKeys.orders(sku),
                RedisKeys.idempotency(sku, command.userId(), command.idempotencyKey()), RedisKeys.voided(sku, orderId),
                RedisKeys.legacyIdempotency(sku, command.idempotencyKey()));
    }

    List<String> purchaseArgs(PurchaseCommand command, String orderId, Instant createdAt, Instant expiresAt,
            String cart, String generation) {
        return List.of(orderId, command.userId(), Integer.toString(command.quantity()),
                command.fingerprint() == null ? "" : command.fingerprint(),
                Long.toString(createdAt.getEpochSecond()), Long.toString(expiresAt.getEpochSecond()),
                command.idempotencyKey() == null ? "" : command.idempotencyKey(),
                Long.toString(idempotencyTtlSeconds), pod.id(), claim,
                maxPending, generation, cart == null ? "" : cart);
    }

    /** The purchase script's reply (see {@code lua/purchase.lua}) as a decision. */
    private static Decision parse(ScriptAnswer reply, String orderId, Instant createdAt) {
        PurchaseReply code = reply.code();
        return switch (code) {
            case OK -> new Decision(code, reply.text(1), orderId, createdAt,
                    Instant.ofEpochSecond(reply.number(5)), 0, reply.text(2), (int) reply.number(3),
                    reply.number(4));
            case REPLAY -> new Decision(code, null, reply.text(1), Instant.ofEpochSecond(reply.number(2)),
                    Instant.ofEpochSecond(reply.number(3)), 0, null, -1, -1);
            case SOLD_OUT -> new Decision(code, null, null, null, null, 0, null, (int) reply.number(1),
                    reply.number(2));
            case LIMIT, NOT_STARTED -> new Decision(code, null, null, null, null, reply.number(1), null, -1, -1);
            default -> Decision.of(code);
        };
    }

    /**
     * The purchase call timed out or its connection broke: the script may still run, or have run. Void it, and say
     * only what is known: nothing changed (it never ran, or it was taken back), or the outcome is unknown (a relay
     * holds its entry and persists it, or Redis cannot be reached to void it); a retry with the same
     * Idempotency-Key then answers the order, if there is one.
     */
    private FlashstockException abandoned(PurchaseCommand command, String orderId, RuntimeException failure) {
        PendingStream.Undo undo;
        try {
            undo = stream.abandon(command.sku(), orderId, command.userId(), command.idempotencyKey(), pod.id());
        } catch (RuntimeException again) {
            LOG.warnf("Could not void purchase %s of %s after a Redis failure: %s", orderId, command.sku(),
                    again.toString());
            return FlashstockException.outcomeUnknown(failure);
        }
        return switch (undo) {
            case UNDONE, NEVER_RAN -> new UnavailableException(
                    "The hot stock cannot be reached; nothing was changed, try again.", failure);
            case GONE, HELD_ELSEWHERE, ANSWERED -> FlashstockException.outcomeUnknown(failure);
        };
    }

    private static UnavailableException coldAnswer() {
        return new UnavailableException("The hot stock is not ready (Redis is being set up or was just rebuilt); "
                + "nothing was changed, try again.");
    }
}
