package io.flashstock.purchase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.flashstock.error.FlashstockException;
import io.flashstock.error.ProblemCode;
import io.flashstock.web.InputRules;
import org.junit.jupiter.api.Test;

/** The purchase's input rules, checked by hand: what passes, and the exact detail of what does not. */
class PurchaseInputTest {

    @Test
    void aRequestThatKeepsEveryRulePasses() {
        PurchaseInput.check("phone-x.2_b", null, new PurchaseRequest(null, 1));
        PurchaseInput.check("P", "!~" + "k".repeat(62), new PurchaseRequest("u.1@shop-a_b", 64));
    }

    @Test
    void eachBrokenRuleIsNamedWithItsField() {
        assertEquals("body: " + PurchaseInput.NO_BODY, refused("phone", null, null));
        assertEquals("quantity: " + PurchaseInput.NO_QUANTITY, refused("phone", null, new PurchaseRequest(null, null)));
        assertEquals("quantity: " + PurchaseInput.QUANTITY_BELOW_ONE,
                refused("phone", null, new PurchaseRequest(null, 0)));
        assertEquals("quantity: " + PurchaseInput.QUANTITY_BELOW_ONE,
                refused("phone", null, new PurchaseRequest(null, Integer.MIN_VALUE)));
        assertEquals("userId: " + InputRules.USER_ID_MESSAGE, refused("phone", null, new PurchaseRequest("", 1)));
        assertEquals("userId: " + InputRules.USER_ID_MESSAGE,
                refused("phone", null, new PurchaseRequest("u{1}", 1)));
        assertEquals("userId: " + InputRules.USER_ID_MESSAGE,
                refused("phone", null, new PurchaseRequest("u".repeat(65), 1)));
        assertEquals("sku: " + InputRules.SKU_MESSAGE, refused("-phone", null, new PurchaseRequest(null, 1)));
        assertEquals("sku: " + InputRules.SKU_MESSAGE, refused("p".repeat(65), null, new PurchaseRequest(null, 1)));
        assertEquals("Idempotency-Key: " + InputRules.IDEMPOTENCY_KEY_MESSAGE,
                refused("phone", "", new PurchaseRequest(null, 1)));
        assertEquals("Idempotency-Key: " + InputRules.IDEMPOTENCY_KEY_MESSAGE,
                refused("phone", "a key", new PurchaseRequest(null, 1)));
        assertEquals("Idempotency-Key: " + InputRules.IDEMPOTENCY_KEY_MESSAGE,
                refused("phone", "k".repeat(65), new PurchaseRequest(null, 1)));
    }

    @Test
    void everyBrokenRuleIsNamedInTheOrderOfItsField() {
        assertEquals("Idempotency-Key: " + InputRules.IDEMPOTENCY_KEY_MESSAGE + "; quantity: "
                + PurchaseInput.QUANTITY_BELOW_ONE + "; userId: " + InputRules.USER_ID_MESSAGE + "; sku: "
                + InputRules.SKU_MESSAGE, refused("*", "\t", new PurchaseRequest("a b", -1)));
        assertEquals("Idempotency-Key: " + InputRules.IDEMPOTENCY_KEY_MESSAGE + "; body: " + PurchaseInput.NO_BODY
                + "; sku: " + InputRules.SKU_MESSAGE, refused("{x}", "é", null));
    }

    private static String refused(String sku, String key, PurchaseRequest request) {
        FlashstockException refused = assertThrows(FlashstockException.class,
                () -> PurchaseInput.check(sku, key, request));
        assertEquals(ProblemCode.INVALID_REQUEST, refused.code());
        return refused.getMessage();
    }
}
