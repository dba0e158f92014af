package io.flashstock.purchase;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.deduction.ActiveStrategy;
import io.flashstock.deduction.CartCommand;
import io.flashstock.deduction.CartOutcome;
import io.flashstock.deduction.DeductionStrategy;
import io.flashstock.deduction.PurchaseCommand;
import io.flashstock.deduction.PurchaseOutcome;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.ProblemCode;
import io.flashstock.item.Availability;
import io.flashstock.item.SaleProgress;
import io.flashstock.redis.RateLimiter;
import io.flashstock.support.MetersByTag;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Singleton;

/**
 * Turns a validated purchase request into a {@link PurchaseCommand} and hands it to the active
 * {@link DeductionStrategy}, which owns the transaction(s). Records the outcome in
 * {@code flashstock.purchases} (tags: strategy, outcome), and per item in {@link SaleProgress}.
 */
@Singleton
public class PurchaseService {

    private static final MessageDigest SHA256 = sha256Prototype();
    private static final HexFormat HEX = HexFormat.of();

    private final DeductionStrategy strategy;
    private final Availability availability;
    private final RateLimiter rateLimiter;
    private final SaleProgress progress;
    private final int maxQuantity;
    private final MeterRegistry registry;
    private final MetersByTag<Timer> purchaseTimers;
    private final MetersByTag<Timer> cartTimers;

    PurchaseService(ActiveStrategy active, Availability availability, RateLimiter rateLimiter, SaleProgress progress,
            FlashstockConfig config, MeterRegistry registry) {
        this.strategy = active.get();
        this.availability = availability;
        this.rateLimiter = rateLimiter;
        this.progress = progress;
        this.maxQuantity = config.maxQuantityPerRequest();
        this.registry = registry;
        String strategyName = strategy.name().configValue();
        this.purchaseTimers = new MetersByTag<>(outcome -> registry.timer("flashstock.purchases",
                "strategy", strategyName, "outcome", outcome));
        this.cartTimers = new MetersByTag<>(outcome -> registry.timer("flashstock.carts",
                "strategy", strategyName, "outcome", outcome));
    }

    /**
     * What a purchase can be refused without Redis or MySQL, so any thread may ask it (the resource asks on the
     * event loop, before it hands the purchase to a worker): a quantity over the bound (400), a sku this pod found
     * missing a moment ago (404, {@link Availability#knownMissing}), and an item this pod knows has too few units (409
     * {@code sold-out}); the last two counted in {@code flashstock.purchases} like any other answer.
     * With an Idempotency-Key, a sold-out is answered from memory only when the item's successful keys, loaded after
     * its level, certainly do not hold the user's key ({@link Availability#soldOut(String, int, String, String)}):
     * otherwise the request may be the retry of a 201, and the strategy answers it.
     */
    public void refuseFromMemory(String sku, String userId, int quantity, String idempotencyKey) {
        if (quantity > maxQuantity) {
            throw FlashstockException.invalid("quantity: must be at most " + maxQuantity + " per purchase");
        }
        long start = System.nanoTime();
        if (availability.knownMissing(sku)) {
            purchaseTimers.get(ProblemCode.ITEM_NOT_FOUND.code()).record(System.nanoTime() - start,
                    TimeUnit.NANOSECONDS);
            throw FlashstockException.itemNotFound(sku);
        }
        if (availability.soldOut(sku, quantity, userId, idempotencyKey)) {
            purchaseTimers.get(ProblemCode.SOLD_OUT.code()).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            progress.refused(sku, ProblemCode.SOLD_OUT.code());
            throw FlashstockException.soldOut(sku, quantity);
        }
    }

    /**
     * The purchase, in this order: what is refused from memory ({@link #refuseFromMemory}, thrown at once), the rate
     * limits (429), then the strategy. {@code clientAddress}: the buyer's address for the per-address limit (null:
     * not limited by address). Never blocks the caller: call it on the event loop; what blocks runs on a worker
     * ({@link DeductionStrategy#purchaseAsync}).
     */
    public Uni<PurchaseOutcome> purchase(String sku, String userId, int quantity, String idempotencyKey,
            String clientAddress) {
        refuseFromMemory(sku, userId, quantity, idempotencyKey);
        String fingerprint = idempotencyKey == null ? null : fingerprint(userId, quantity);
        PurchaseCommand command = new PurchaseCommand(sku, userId, quantity, idempotencyKey, fingerprint);
        long start = System.nanoTime();
        return rateLimiter.admitted(userId, clientAddress, quantity, () -> strategy.purchaseAsync(command))
                .onItemOrFailure().invoke((result, failure) -> {
                    String outcome = failure == null ? (result.replayed() ? "replayed" : "reserved")
                            : failure instanceof FlashstockException e ? e.code().code() : "error";
                    purchaseTimers.get(outcome).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
                    if (failure == null && !result.replayed()) {
                        progress.purchased(sku);
                    } else if (failure instanceof FlashstockException e) {
                        progress.refused(sku, e.code().code());
                    }
                    if (failure instanceof FlashstockException e && e.code() == ProblemCode.SOLD_OUT) {
                        // the next refusals of this item come from memory, keyed ones too
                        availability.learnSoon(sku, idempotencyKey != null);
                    } else if (failure instanceof FlashstockException e && e.code() == ProblemCode.ITEM_NOT_FOUND) {
                        availability.notFound(sku, start); // and of this made-up sku
                    }
                });
    }

    /**
     * A multi-item purchase, in the same order as a single one: a line known sold out answered from memory, the rate
     * limits (once for the whole purchase), then the strategy. Lines: 1 to {@value CartCommand#MAX_LINES}, distinct
     * skus, each within the quantity bound.
     */
    public CartOutcome purchase(String userId, List<CartCommand.Line> lines, String idempotencyKey,
            String clientAddress) {
        Set<String> skus = new HashSet<>();
        for (CartCommand.Line line : lines) {
            if (!skus.add(line.sku())) {
                throw FlashstockException.invalid("lines: sku '" + line.sku() + "' appears more than once");
            }
            if (line.quantity() > maxQuantity) {
                throw FlashstockException.invalid("lines[].quantity: must be at most " + maxQuantity
                        + " per purchase").forLine(line.sku());
            }
        }
        CartCommand cart = new CartCommand(userId, lines, idempotencyKey, null);
        if (idempotencyKey != null) {
            cart = new CartCommand(userId, lines, idempotencyKey, fingerprint(cart));
        }
        Timer.Sample sample = Timer.start(registry);
        long start = System.nanoTime();
        String outcome = "error";
        try {
            for (CartCommand.Line line : cart.lines()) {
                if (availability.knownMissing(line.sku())) {
                    throw FlashstockException.itemNotFound(line.sku()).forLine(line.sku());
                }
                if (idempotencyKey == null && availability.soldOut(line.sku(), line.quantity())) {
                    throw FlashstockException.soldOut(line.sku(), line.quantity()).forLine(line.sku());
                }
            }
            rateLimiter.admit(userId, clientAddress, cart.lines().stream().mapToInt(CartCommand.Line::quantity).sum());
            CartOutcome result = strategy.purchase(cart);
            outcome = result.replayed() ? "replayed" : "reserved";
            if (!result.replayed()) {
                cart.lines().forEach(line -> progress.purchased(line.sku()));
            }
            return result;
        } catch (FlashstockException e) {
            outcome = e.code().code();
            progress.refused(e.sku(), outcome);
            if (e.code() == ProblemCode.SOLD_OUT && e.sku() != null) {
                availability.learn(e.sku(), false);
            } else if (e.code() == ProblemCode.ITEM_NOT_FOUND && e.sku() != null) {
                availability.notFound(e.sku(), start);
            }
            throw e;
        } finally {
            sample.stop(cartTimers.get(outcome));
        }
    }

    /** What a cart's Idempotency-Key promises to keep meaning: the same user buying the same lines. */
    static String fingerprint(CartCommand cart) {
        StringBuilder text = new StringBuilder(cart.userId());
        for (CartCommand.Line line : cart.lines()) {
            text.append('\n').append(line.sku()).append(' ').append(line.quantity());
        }
        return sha256(text.toString());
    }

    /** What an Idempotency-Key promises to keep meaning: the same user buying the same quantity. */
    static String fingerprint(String userId, int quantity) {
        return sha256(userId + '\n' + quantity);
    }

    /**
     * A fresh digest per call, cloned from one made at start: {@code MessageDigest.getInstance} looks the provider up
     * and builds the digest by reflection, which cost about 0.7% of the service's CPU per keyed purchase.
     */
    private static String sha256(String text) {
        try {
            MessageDigest sha256 = (MessageDigest) SHA256.clone();
            return HEX.formatHex(sha256.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("the platform's SHA-256 can be cloned", e);
        }
    }

    private static MessageDigest sha256Prototype() {
        try {
            MessageDigest prototype = MessageDigest.getInstance("SHA-256");
            prototype.clone(); // fail at start, not on a purchase, should a provider ever refuse
            return prototype;
        } catch (NoSuchAlgorithmException | CloneNotSupportedException e) {
            throw new IllegalStateException("SHA-256 is part of every Java platform, and clonable", e);
        }
    }
}
