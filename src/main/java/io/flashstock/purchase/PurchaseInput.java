package io.flashstock.purchase;

import io.flashstock.error.FlashstockException;
import io.flashstock.web.InputRules;

/**
 * The input rules of {@code POST /items/{sku}/purchases}, checked by hand rather than by Bean Validation: this is the
 * one request a sale sends by the thousand per second, and Hibernate Validator's method validation cost about 5% of
 * the service's CPU per purchase (docs/benchmarks.md, issue 36). The rules are {@link InputRules}', and a
 * refusal reads as the validation mapper's: 400 {@code invalid-request}, every broken rule named as
 * {@code "field: message"}, joined by {@code "; "}, in the order of the fields' paths (Idempotency-Key, the body or
 * its fields, sku). The identifiers are checked by {@link InputRules}' scans, the same rules as its patterns without
 * a matcher per request (a hot sell's JFR profile, docs/benchmarks.md).
 */
final class PurchaseInput {

    static final String NO_BODY = "a JSON body is required";
    static final String NO_QUANTITY = "must not be null";
    static final String QUANTITY_BELOW_ONE = "must be greater than or equal to 1";

    private PurchaseInput() {
    }

    /** Throws 400 {@code invalid-request} naming every broken rule; returns when the request keeps them all. */
    static void check(String sku, String idempotencyKey, PurchaseRequest request) {
        StringBuilder broken = null;
        if (idempotencyKey != null && !InputRules.isIdempotencyKey(idempotencyKey)) {
            broken = add(broken, InputRules.IDEMPOTENCY_KEY_HEADER, InputRules.IDEMPOTENCY_KEY_MESSAGE);
        }
        if (request == null) {
            broken = add(broken, "body", NO_BODY);
        } else {
            if (request.quantity() == null) {
                broken = add(broken, "quantity", NO_QUANTITY);
            } else if (request.quantity() < 1) {
                broken = add(broken, "quantity", QUANTITY_BELOW_ONE);
            }
            if (request.userId() != null && !InputRules.isUserId(request.userId())) {
                broken = add(broken, "userId", InputRules.USER_ID_MESSAGE);
            }
        }
        if (!InputRules.isSku(sku)) {
            broken = add(broken, "sku", InputRules.SKU_MESSAGE);
        }
        if (broken != null) {
            throw FlashstockException.invalid(broken.toString());
        }
    }

    private static StringBuilder add(StringBuilder broken, String field, String message) {
        StringBuilder detail = broken == null ? new StringBuilder() : broken.append("; ");
        return detail.append(field).append(": ").append(message);
    }
}
