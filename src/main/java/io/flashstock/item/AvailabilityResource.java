package io.flashstock.item;

import io.flashstock.access.Roles;
import io.flashstock.config.FlashstockConfig;
import io.flashstock.error.FlashstockException;
import io.flashstock.support.Workers;
import io.flashstock.web.InputRules;
import io.quarkus.arc.NoClassInterceptors;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.CacheControl;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.EntityTag;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Request;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponseSchema;
import org.jboss.resteasy.reactive.RestPath;

/**
 * {@code GET /items/{sku}/availability}: what a buyer's page polls, by the thousand per second in a sale's last
 * seconds. Runs on the event loop: an answer this pod remembers (loaded within {@code availability.cache-ttl}, or a
 * sku known missing) is given there, without a hop to a worker thread and back; only a load (Redis or MySQL) goes to a
 * worker. Its roles are checked by Quarkus REST before the method runs (the class's {@code @RolesAllowed}, as for
 * purchases: {@code @NoClassInterceptors} keeps the security interceptor from checking them again), and the sku by
 * {@link InputRules}' scan, not Bean Validation: 400 {@code invalid-request} {@code "sku: ..."} as before.
 */
@Path("/items/{sku}/availability")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({ Roles.ADMIN, Roles.SHOP, Roles.BUYER, Roles.PAYMENT })
public class AvailabilityResource {

    private final Availability availability;
    private final int maxAgeSeconds;

    AvailabilityResource(Availability availability, FlashstockConfig config) {
        this.availability = availability;
        this.maxAgeSeconds = (int) Math.min(1, config.availability().cacheTtl().toSeconds());
    }

    /**
     * Available units and the sale's state, from memory or the hot stock (never a MySQL query per request).
     * {@code ETag} and {@code Cache-Control: max-age}; {@code If-None-Match} → 304; an {@code If-Match} that names
     * another state → 412 {@code version-mismatch}, a problem like every refusal (Quarkus REST's precondition answer
     * has no body).
     */
    @GET
    @NoClassInterceptors
    @APIResponseSchema(value = AvailabilityView.class, responseDescription = "The item's availability; its ETag "
            + "changes exactly when the body does")
    public Uni<Response> read(@RestPath @Parameter(schema = @Schema(pattern = InputRules.SKU)) String sku,
            @Context Request request) {
        if (!InputRules.isSku(sku)) {
            throw FlashstockException.invalid("sku: " + InputRules.SKU_MESSAGE);
        }
        AvailabilityView known = availability.remembered(sku);
        if (known != null) {
            return Uni.createFrom().item(answer(known, request));
        }
        return Workers.call(() -> answer(availability.read(sku), request));
    }

    private Response answer(AvailabilityView view, Request request) {
        EntityTag tag = new EntityTag(view.etag());
        CacheControl cache = new CacheControl();
        cache.setMaxAge(maxAgeSeconds);
        cache.setNoTransform(false);
        Response.ResponseBuilder conditional = request.evaluatePreconditions(tag);
        Response answer = (conditional != null ? conditional : Response.ok(view)).tag(tag).cacheControl(cache).build();
        if (answer.getStatus() == Response.Status.PRECONDITION_FAILED.getStatusCode()) {
            throw FlashstockException.availabilityChanged(view.sku());
        }
        return answer;
    }
}
