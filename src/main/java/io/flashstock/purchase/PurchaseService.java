package io.flashstock.purchase;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

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
import io.flashstock.redis.RateLimiter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Turns a validated purchase request into a {@link PurchaseCommand} and hands it to the active
 * {@link DeductionStrategy}, which owns the transaction(s). Records the outcome in
 * {@code flashstock.purchases} (tags: strategy, outcome).
 */
@ApplicationScoped
public class PurchaseService {

    private final DeductionStrategy strategy;
    private final Availability availability;
    private final RateLimiter rateLimiter;
    private final int maxQuantity;
    private final MeterRegistry registry;

    PurchaseService(ActiveStrategy active, Availability availability, RateLimiter rateLimiter,
            FlashstockConfig config, MeterRegistry registry) {
        this.strategy = active.get();
        this.availability = availability;
        this.rateLimiter = rateLimiter;
        this.maxQuantity = config.maxQuantityPerRequest();
        this.registry = registry;
    }

    /**
     * The purchase, in this order: a known sold-out answered from memory, the rate limits (429), then the strategy.
     * {@code clientAddress}: the buyer's address for the per-address limit (null: not limited by address).
     */
    public PurchaseOutcome purchase(String sku, String userId, int quantity, String idempotencyKey,
            String clientAddress) {
        if (quantity > maxQuantity) {
            throw FlashstockException.invalid("quantity: must be at most " + maxQuantity + " per purchase");
        }
        String fingerprint = idempotencyKey == null ? null : fingerprint(userId, quantity);
        PurchaseCommand command = new PurchaseCommand(sku, userId, quantity, idempotencyKey, fingerprint);
        Timer.Sample sample = Timer.start(registry);
        String outcome = "error";
        try {
            if (idempotencyKey == null && availability.soldOut(sku, quantity)) {
                // Known sold out: no Redis, no MySQL. With a key the strategy answers: it may be a retry of a 201.
                throw FlashstockException.soldOut(sku, quantity);
            }
            rateLimiter.admit(userId, clientAddress);
            PurchaseOutcome result = strategy.purchase(command);
            outcome = result.replayed() ? "replayed" : "reserved";
            return result;
        } catch (FlashstockException e) {
            outcome = e.code().code();
            if (e.code() == ProblemCode.SOLD_OUT) {
                availability.learn(sku); // the next refusals of this item come from memory
            }
            throw e;
        } finally {
            sample.stop(registry.timer("flashstock.purchases", "strategy", strategy.name().configValue(),
                    "outcome", outcome));
        }
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
        String outcome = "error";
        try {
            if (idempotencyKey == null) {
                for (CartCommand.Line line : cart.lines()) {
                    if (availability.soldOut(line.sku(), line.quantity())) {
                        throw FlashstockException.soldOut(line.sku(), line.quantity()).forLine(line.sku());
                    }
                }
            }
            rateLimiter.admit(userId, clientAddress);
            CartOutcome result = strategy.purchase(cart);
            outcome = result.replayed() ? "replayed" : "reserved";
            return result;
        } catch (FlashstockException e) {
            outcome = e.code().code();
            if (e.code() == ProblemCode.SOLD_OUT && e.sku() != null) {
                availability.learn(e.sku());
            }
            throw e;
        } finally {
            sample.stop(registry.timer("flashstock.carts", "strategy", strategy.name().configValue(),
                    "outcome", outcome));
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

    private static String sha256(String text) {
        try {
            MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
            byte[] digest = sha256.digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java platform", e);
        }
    }
}
