package io.flashstock.purchase;

import java.net.URI;

import io.flashstock.access.Caller;
import io.flashstock.access.Roles;
import io.flashstock.deduction.PurchaseOutcome;
import io.flashstock.web.InputRules;
import io.quarkus.arc.NoClassInterceptors;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.jboss.resteasy.reactive.RestHeader;
import org.jboss.resteasy.reactive.RestPath;

/**
 * {@code POST /items/{sku}/purchases}. Its roles are checked by Quarkus REST before the method runs (its eager
 * security check, which reads the class's {@code @RolesAllowed}: 401 {@code unauthenticated}, 403 {@code forbidden}).
 * The method opts out of the class's CDI interceptors ({@code @NoClassInterceptors}), so the same check is not also run
 * by the security interceptor, Quarkus's backup for beans called from outside a REST request, on every purchase; this
 * resource is only ever called by a request. StrategyContract's 401 and 403 cases hold the check in place.
 */
@Path("/items/{sku}/purchases")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({ Roles.SHOP, Roles.BUYER })
public class PurchaseResource {

    static final String IDEMPOTENCY_KEY = InputRules.IDEMPOTENCY_KEY_HEADER;
    static final String REPLAYED = InputRules.REPLAYED_HEADER;

    private final PurchaseService purchases;
    private final Caller caller;

    PurchaseResource(PurchaseService purchases, Caller caller) {
        this.purchases = purchases;
        this.caller = caller;
    }

    /**
     * Reserves units for a buyer: 201 with the RESERVED order. With an Idempotency-Key, a repeat of the same
     * request answers the first order again (header {@code Idempotent-Replayed: true}). A shop names the user in
     * the body; a buyer buys as its token's user.
     *
     * <p>Runs on the event loop: a purchase refused from memory (a known sold-out, the storm of a sale's last
     * seconds) is answered there, and so is a redis-lua write-behind purchase, whose script runs on the reactive
     * Redis client. What blocks (MySQL, a lock wait) goes to a worker thread ({@link PurchaseService#purchase}).
     * Its input rules are checked by {@link PurchaseInput}, not Bean Validation.
     */
    @POST
    @NoClassInterceptors
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<Response> purchase(
            @RestPath @Parameter(schema = @Schema(pattern = InputRules.SKU)) String sku,
            @RestHeader(IDEMPOTENCY_KEY) @Parameter(schema = @Schema(pattern = InputRules.IDEMPOTENCY_KEY))
            String idempotencyKey,
            PurchaseRequest request,
            @Context HttpServerRequest connection) {
        PurchaseInput.check(sku, idempotencyKey, request);
        String userId = caller.purchaser(request.userId());
        String address = connection.remoteAddress() == null ? null : connection.remoteAddress().hostAddress();
        return purchases.purchase(sku, userId, request.quantity(), idempotencyKey, address)
                .map(PurchaseResource::created);
    }

    private static Response created(PurchaseOutcome outcome) {
        Response.ResponseBuilder response = Response.status(Response.Status.CREATED)
                .location(URI.create("/orders/" + outcome.order().orderId()))
                .entity(outcome.order());
        if (outcome.replayed()) {
            response.header(REPLAYED, "true");
        }
        return response.build();
    }
}
