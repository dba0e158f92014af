package io.flashstock.access;

/**
 * The roles of the REST contract, read from a bearer JWT's {@code groups} claim. What each may call is declared on
 * the resources with {@code @RolesAllowed}; an endpoint without a declaration is denied
 * ({@code quarkus.security.jaxrs.deny-unannotated-endpoints}).
 */
public final class Roles {

    /** Runs the catalog: creates items, restocks, sets sale windows; reads everything. */
    public static final String ADMIN = "admin";
    /**
     * A trusted backend buying on behalf of its users: the body's {@code userId} is required and trusted; reads,
     * confirms and cancels any order.
     */
    public static final String SHOP = "shop";
    /**
     * An end user: buys as the token's {@code sub} only, and reads and cancels only its own orders (another user's
     * order answers 404, as if it did not exist).
     */
    public static final String BUYER = "buyer";
    /** The payment provider's callback: confirms orders and reads them. */
    public static final String PAYMENT = "payment";

    private Roles() {
    }
}
