package io.flashstock.item;

import java.net.URI;

import io.flashstock.access.Caller;
import io.flashstock.access.Roles;
import io.flashstock.error.FlashstockException;
import io.flashstock.web.InputRules;
import io.flashstock.web.PageLinks;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriBuilder;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponseSchema;
import org.jboss.resteasy.reactive.RestHeader;
import org.jboss.resteasy.reactive.RestPath;
import org.jboss.resteasy.reactive.RestResponse;
import org.jboss.resteasy.reactive.RestQuery;

@Path("/items")
@Produces(MediaType.APPLICATION_JSON)
public class ItemResource {

    private final ItemService items;
    private final StockSets stockSets;
    private final ItemListing listing;
    private final MovementListing movements;
    private final Caller caller;

    ItemResource(ItemService items, StockSets stockSets, ItemListing listing, MovementListing movements,
            Caller caller) {
        this.items = items;
        this.stockSets = stockSets;
        this.listing = listing;
        this.movements = movements;
        this.caller = caller;
    }

    /** Creates an item with its initial stock: 201, or 409 {@code item-exists}. */
    @POST
    @RolesAllowed(Roles.ADMIN)
    @Consumes(MediaType.APPLICATION_JSON)
    public Response create(@NotNull(message = "a JSON body is required") @Valid CreateItemRequest request) {
        ItemView item = items.create(request, caller.actor());
        return Response.created(URI.create("/items/" + item.sku())).entity(item).build();
    }

    /** The item, with {@code ETag: "<version>"}: the version a change names in {@code If-Match}. */
    @GET
    @Path("/{sku}")
    @RolesAllowed({ Roles.ADMIN, Roles.SHOP, Roles.BUYER, Roles.PAYMENT })
    public RestResponse<ItemView> get(
            @RestPath @Pattern(regexp = InputRules.SKU, message = InputRules.SKU_MESSAGE) String sku) {
        return tagged(items.get(sku));
    }

    /**
     * Replaces the sale window (every field optional: no bound, not paused): 200 with the item. {@code If-Match}
     * optional: when sent, a version that is not the current one is 412.
     */
    @PUT
    @Path("/{sku}/sale")
    @RolesAllowed(Roles.ADMIN)
    @Consumes(MediaType.APPLICATION_JSON)
    public RestResponse<ItemView> sale(
            @RestPath @Pattern(regexp = InputRules.SKU, message = InputRules.SKU_MESSAGE) String sku,
            @RestHeader(IfMatch.HEADER) String ifMatch,
            @NotNull(message = "a JSON body is required") @Valid SaleRequest request) {
        return tagged(items.setSale(sku, request.window(), IfMatch.parse(ifMatch), caller.actor()));
    }

    /**
     * Sets the stock (available = stock - reserved - sold). Needs {@code If-Match: "<version>"}: none 428, stale 412;
     * below reserved + sold 409 {@code stock-below-committed}.
     */
    @PUT
    @Path("/{sku}/stock")
    @RolesAllowed(Roles.ADMIN)
    @Consumes(MediaType.APPLICATION_JSON)
    public RestResponse<ItemView> stock(
            @RestPath @Pattern(regexp = InputRules.SKU, message = InputRules.SKU_MESSAGE) String sku,
            @RestHeader(IfMatch.HEADER) String ifMatch,
            @NotNull(message = "a JSON body is required") @Valid SetStockRequest request) {
        return tagged(stockSets.setStock(sku, request.stock(), IfMatch.parse(ifMatch), caller.actor()));
    }

    /**
     * Retires the item: purchases are refused from now on (409 {@code item-retired}), reservations still confirm,
     * cancel and expire. Needs {@code If-Match} as a stock set does.
     */
    @POST
    @Path("/{sku}/retire")
    @RolesAllowed(Roles.ADMIN)
    public RestResponse<ItemView> retire(
            @RestPath @Pattern(regexp = InputRules.SKU, message = InputRules.SKU_MESSAGE) String sku,
            @RestHeader(IfMatch.HEADER) String ifMatch) {
        return tagged(items.retire(sku, IfMatch.parse(ifMatch), caller.actor()));
    }

    private static RestResponse<ItemView> tagged(ItemView item) {
        return RestResponse.ResponseBuilder.ok(item).tag(item.etag()).build();
    }

    /**
     * Items in sku order, {@code limit} (1-200, default 50) at a time after the sku {@code after}: 200
     * {@code {"items":[...],"next":<cursor>|null}}, and {@code Link: <...>; rel="next"} while there is a next page.
     */
    @GET
    @RolesAllowed({ Roles.ADMIN, Roles.SHOP, Roles.BUYER, Roles.PAYMENT })
    @APIResponseSchema(value = ItemPage.class, responseDescription = "A page; while there is a next one, its URL in "
            + "the Link header (rel=next)")
    public Response list(
            @RestQuery @Pattern(regexp = InputRules.SKU, message = InputRules.SKU_MESSAGE) String after,
            @RestQuery @Parameter(description = "Entries per page: 1 to " + InputRules.LIST_LIMIT_MAX + ", default "
                    + InputRules.LIST_LIMIT_DEFAULT, schema = @Schema(type = SchemaType.INTEGER)) String limit) {
        int count = InputRules.listLimit(limit);
        ItemPage page = listing.list(after, count);
        return PageLinks.page(page, page.next(), UriBuilder.fromPath("/items"), count);
    }

    /**
     * The item's movement ledger in id (append) order, {@code limit} (1-200, default 50) at a time after the movement
     * id {@code after}: 200 {@code {"movements":[...],"next":<cursor>|null}}, and {@code Link: <...>; rel="next"}
     * while there is a next page; 404 for an unknown item.
     */
    @GET
    @Path("/{sku}/movements")
    @RolesAllowed(Roles.ADMIN)
    @APIResponseSchema(value = MovementPage.class, responseDescription = "A page; while there is a next one, its URL "
            + "in the Link header (rel=next)")
    public Response movements(
            @RestPath @Pattern(regexp = InputRules.SKU, message = InputRules.SKU_MESSAGE) String sku,
            @RestQuery @Pattern(regexp = InputRules.MOVEMENT_ID, message = InputRules.MOVEMENT_ID_MESSAGE)
            @Parameter(description = "The cursor: the last movement id of the previous page") String after,
            @RestQuery @Parameter(description = "Entries per page: 1 to " + InputRules.LIST_LIMIT_MAX + ", default "
                    + InputRules.LIST_LIMIT_DEFAULT, schema = @Schema(type = SchemaType.INTEGER)) String limit) {
        int count = InputRules.listLimit(limit);
        MovementPage page = movements.list(sku, after == null ? 0 : Long.parseLong(after), count);
        return PageLinks.page(page, page.next(), UriBuilder.fromPath("/items/{sku}/movements").resolveTemplate("sku",
                sku), count);
    }

    /**
     * Adds units to stock and available. With an Idempotency-Key, a repeat of the same restock adds nothing and
     * answers the item as it is (header {@code Idempotent-Replayed: true}).
     */
    @POST
    @Path("/{sku}/restock")
    @RolesAllowed(Roles.ADMIN)
    @Consumes(MediaType.APPLICATION_JSON)
    public Response restock(@RestPath @Pattern(regexp = InputRules.SKU, message = InputRules.SKU_MESSAGE) String sku,
            @RestHeader(InputRules.IDEMPOTENCY_KEY_HEADER) @Pattern(regexp = InputRules.IDEMPOTENCY_KEY,
                    message = InputRules.IDEMPOTENCY_KEY_MESSAGE) String idempotencyKey,
            @NotNull(message = "a JSON body is required") @Valid RestockRequest request) {
        ItemService.RestockOutcome outcome = items.restock(sku, request.quantity(), idempotencyKey, caller.actor());
        Response.ResponseBuilder response = Response.ok(outcome.item());
        if (outcome.replayed()) {
            response.header(InputRules.REPLAYED_HEADER, "true");
        }
        return response.build();
    }
}
