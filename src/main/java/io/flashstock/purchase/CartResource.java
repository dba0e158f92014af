package io.flashstock.purchase;

import java.net.URI;

import io.flashstock.access.Caller;
import io.flashstock.access.Roles;
import io.flashstock.deduction.CartOutcome;
import io.flashstock.error.FlashstockException;
import io.flashstock.order.OrderService;
import io.flashstock.order.PurchaseView;
import io.flashstock.order.TransitionTimers;
import io.flashstock.web.InputRules;
import io.vertx.core.http.HttpServerRequest;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.RestHeader;
import org.jboss.resteasy.reactive.RestPath;

/**
 * Multi-item purchases: all lines or none, one order per line sharing the purchase id; confirmed, cancelled and
 * expired together (docs/multi-item-purchases.md).
 */
@Path("/purchases")
@Produces(MediaType.APPLICATION_JSON)
public class CartResource {

    private final PurchaseService purchases;
    private final OrderService orders;
    private final Caller caller;
    private final TransitionTimers timers;

    CartResource(PurchaseService purchases, OrderService orders, Caller caller, TransitionTimers timers) {
        this.purchases = purchases;
        this.orders = orders;
        this.caller = caller;
        this.timers = timers;
    }

    /**
     * Reserves every line for a buyer: 201 with the purchase and its RESERVED orders. If any line is refused the
     * answer is that line's problem, with the member {@code sku} naming it, and no line holds a unit. With an
     * Idempotency-Key, a repeat of the same request answers the first purchase again (header
     * {@code Idempotent-Replayed: true}).
     */
    @POST
    @RolesAllowed({ Roles.SHOP, Roles.BUYER })
    @Consumes(MediaType.APPLICATION_JSON)
    public Response purchase(
            @RestHeader(PurchaseResource.IDEMPOTENCY_KEY) @Pattern(regexp = InputRules.IDEMPOTENCY_KEY,
                    message = InputRules.IDEMPOTENCY_KEY_MESSAGE) String idempotencyKey,
            @NotNull(message = "a JSON body is required") @Valid CartRequest request,
            @Context HttpServerRequest connection) {
        String userId = caller.purchaser(request.userId());
        CartOutcome outcome = purchases.purchase(userId, request.commandLines(), idempotencyKey,
                connection.remoteAddress() == null ? null : connection.remoteAddress().hostAddress());
        Response.ResponseBuilder response = Response.status(Response.Status.CREATED)
                .location(URI.create("/purchases/" + outcome.purchase().purchaseId()))
                .entity(outcome.purchase());
        if (outcome.replayed()) {
            response.header(PurchaseResource.REPLAYED, "true");
        }
        return response.build();
    }

    /** The purchase and its lines; a buyer sees only its own (another user's purchase is 404). */
    @GET
    @Path("/{purchaseId}")
    @RolesAllowed({ Roles.ADMIN, Roles.SHOP, Roles.PAYMENT, Roles.BUYER })
    public PurchaseView get(@RestPath String purchaseId) {
        return orders.getPurchase(checked(purchaseId), caller.orderOwner());
    }

    /** Marks every line paid: 200, all CONFIRMED; 409 {@code order-not-reserved} if a line was cancelled or expired. */
    @POST
    @Path("/{purchaseId}/confirm")
    @RolesAllowed({ Roles.SHOP, Roles.PAYMENT })
    public PurchaseView confirm(@RestPath String purchaseId) {
        return timers.time(TransitionTimers.Kind.CONFIRM_PURCHASE,
                () -> orders.confirmPurchase(checked(purchaseId), caller.actor()));
    }

    /** Cancels every line and returns its units: 200, again 200 unchanged. A buyer cancels only its own. */
    @POST
    @Path("/{purchaseId}/cancel")
    @RolesAllowed({ Roles.SHOP, Roles.BUYER })
    public PurchaseView cancel(@RestPath String purchaseId) {
        return timers.time(TransitionTimers.Kind.CANCEL_PURCHASE,
                () -> orders.cancelPurchase(checked(purchaseId), caller.orderOwner(), caller.actor()));
    }

    /** Ids are issued by us; anything that is not one cannot name a purchase. */
    private static String checked(String purchaseId) {
        if (!purchaseId.matches(InputRules.ORDER_ID)) {
            throw FlashstockException.purchaseNotFound(
                    purchaseId.length() > 64 ? purchaseId.substring(0, 64) : purchaseId);
        }
        return purchaseId;
    }
}
