package io.flashstock.order;

import io.flashstock.access.Caller;
import io.flashstock.access.Roles;
import io.flashstock.error.FlashstockException;
import io.flashstock.web.InputRules;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.jboss.resteasy.reactive.RestPath;

@Path("/orders/{orderId}")
@Produces(MediaType.APPLICATION_JSON)
public class OrderResource {

    private final OrderService orders;
    private final Caller caller;
    private final TransitionTimers timers;

    OrderResource(OrderService orders, Caller caller, TransitionTimers timers) {
        this.orders = orders;
        this.caller = caller;
        this.timers = timers;
    }

    /** The order; a buyer sees only its own (another user's order is 404, as if it did not exist). */
    @GET
    @RolesAllowed({ Roles.ADMIN, Roles.SHOP, Roles.PAYMENT, Roles.BUYER })
    public OrderView get(@RestPath String orderId) {
        return orders.get(checked(orderId), caller.orderOwner());
    }

    /** Marks a RESERVED order paid: 200 CONFIRMED; 409 {@code order-not-reserved} if it was cancelled or expired. */
    @POST
    @Path("/confirm")
    @RolesAllowed({ Roles.SHOP, Roles.PAYMENT })
    public OrderView confirm(@RestPath String orderId) {
        return timers.time(TransitionTimers.Kind.CONFIRM_ORDER,
                () -> orders.confirm(checked(orderId), caller.actor()));
    }

    /**
     * Cancels a RESERVED order and returns its units: 200 CANCELLED, again 200 unchanged. A buyer cancels only its
     * own orders.
     */
    @POST
    @Path("/cancel")
    @RolesAllowed({ Roles.SHOP, Roles.BUYER })
    public OrderView cancel(@RestPath String orderId) {
        return timers.time(TransitionTimers.Kind.CANCEL_ORDER,
                () -> orders.cancel(checked(orderId), caller.orderOwner(), caller.actor()));
    }

    /**
     * Keeps a RESERVED order at least {@code seconds} from now, within {@code flashstock.reservation-max-ttl} of its
     * purchase: 200 with the new {@code expiresAt}; 409 {@code order-not-reserved} once it is no longer RESERVED.
     * Safe to repeat. A buyer extends only its own orders.
     */
    @POST
    @Path("/extend")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed({ Roles.SHOP, Roles.PAYMENT, Roles.BUYER })
    public OrderView extend(@RestPath String orderId,
            @NotNull(message = "a JSON body is required") @Valid ExtendRequest request) {
        return orders.extend(checked(orderId), request.seconds(), caller.orderOwner(), caller.actor());
    }

    /** Ids are issued by us; anything that is not one cannot name an order. */
    private static String checked(String orderId) {
        if (!orderId.matches(InputRules.ORDER_ID)) {
            throw FlashstockException.orderNotFound(orderId.length() > 64 ? orderId.substring(0, 64) : orderId);
        }
        return orderId;
    }
}
