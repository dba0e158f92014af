package io.flashstock.order;

import java.util.Arrays;
import java.util.stream.Collectors;

import io.flashstock.access.Caller;
import io.flashstock.access.Roles;
import io.flashstock.error.FlashstockException;
import io.flashstock.web.InputRules;
import io.flashstock.web.PageLinks;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriBuilder;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponseSchema;
import org.jboss.resteasy.reactive.RestQuery;

/** {@code GET /orders}: the orders, a page at a time ({@link OrderResource} is one order). */
@Path("/orders")
@Produces(MediaType.APPLICATION_JSON)
public class OrderListResource {

    private static final String STATUS_MESSAGE = "must be one of "
            + Arrays.stream(OrderStatus.values()).map(Enum::name).collect(Collectors.joining(", "));

    private final OrderListing listing;
    private final Caller caller;

    OrderListResource(OrderListing listing, Caller caller) {
        this.listing = listing;
        this.caller = caller;
    }

    /**
     * Orders in id (creation) order, {@code limit} (1-200, default 50) at a time after the order id {@code after},
     * optionally of one item, status and user: 200 {@code {"orders":[...],"next":<cursor>|null,"pendingInRedis":n}}
     * and {@code Link: <...>; rel="next"} while there is a next page. A buyer lists only its own orders: its token's
     * user replaces {@code userId}.
     */
    @GET
    @RolesAllowed({ Roles.ADMIN, Roles.SHOP, Roles.PAYMENT, Roles.BUYER })
    @APIResponseSchema(value = OrderPage.class, responseDescription = "A page; while there is a next one, its URL in "
            + "the Link header (rel=next)")
    public Response list(
            @RestQuery @Pattern(regexp = InputRules.SKU, message = InputRules.SKU_MESSAGE) String sku,
            @RestQuery @Parameter(description = "RESERVED, CONFIRMED, CANCELLED or EXPIRED",
                    schema = @Schema(type = SchemaType.STRING,
                            enumeration = { "RESERVED", "CONFIRMED", "CANCELLED", "EXPIRED" })) String status,
            @RestQuery @Pattern(regexp = InputRules.USER_ID, message = InputRules.USER_ID_MESSAGE) String userId,
            @RestQuery @Pattern(regexp = InputRules.ORDER_ID, message = InputRules.ORDER_ID_MESSAGE) String after,
            @RestQuery @Parameter(description = "Entries per page: 1 to " + InputRules.LIST_LIMIT_MAX + ", default "
                    + InputRules.LIST_LIMIT_DEFAULT, schema = @Schema(type = SchemaType.INTEGER)) String limit) {
        int count = InputRules.listLimit(limit);
        OrderStatus wanted = status(status);
        String user = caller.orderOwner().orElse(userId);
        OrderPage page = listing.list(new OrderListing.Filter(sku, wanted, user), after, count);
        UriBuilder query = UriBuilder.fromPath("/orders");
        if (sku != null) {
            query.queryParam("sku", sku);
        }
        if (wanted != null) {
            query.queryParam("status", wanted.name());
        }
        if (user != null) {
            query.queryParam("userId", user);
        }
        return PageLinks.page(page, page.next(), query, count);
    }

    private static OrderStatus status(String status) {
        if (status == null) {
            return null;
        }
        return Arrays.stream(OrderStatus.values()).filter(s -> s.name().equals(status)).findFirst()
                .orElseThrow(() -> FlashstockException.invalid("status: " + STATUS_MESSAGE));
    }
}
