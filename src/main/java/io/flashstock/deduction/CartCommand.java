package io.flashstock.deduction;

import java.util.Comparator;
import java.util.List;

/**
 * A validated multi-item purchase: what every strategy receives. Its lines are in sku order, always, so that two
 * carts sharing items take locks and rows in the same order and never deadlock.
 *
 * @param idempotencyKey the client's Idempotency-Key (scoped to the user), or {@code null}
 * @param fingerprint    SHA-256 (hex) of what the key must keep meaning: user and lines; {@code null} without a key
 */
public record CartCommand(String userId, List<Line> lines, String idempotencyKey, String fingerprint) {

    /** Most lines in one purchase. */
    public static final int MAX_LINES = 20;

    /** One line: units of one item. */
    public record Line(String sku, int quantity) {
    }

    public CartCommand {
        lines = lines.stream().sorted(Comparator.comparing(Line::sku)).toList();
    }

    public boolean hasIdempotencyKey() {
        return idempotencyKey != null;
    }

    /** The single purchase a line amounts to (no Idempotency-Key of its own: the cart's covers it). */
    public PurchaseCommand line(Line line) {
        return new PurchaseCommand(line.sku(), userId, line.quantity(), null, null);
    }
}
