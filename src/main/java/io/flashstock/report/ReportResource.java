package io.flashstock.report;

import io.flashstock.access.Roles;
import io.flashstock.web.InputRules;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.jboss.resteasy.reactive.RestPath;

/** {@code GET /items/{sku}/report}: the settlement report of an item (admin). */
@Path("/items/{sku}/report")
@Produces(MediaType.APPLICATION_JSON)
public class ReportResource {

    private final ReportService reports;

    ReportResource(ReportService reports) {
        this.reports = reports;
    }

    /**
     * The item's counters, its orders and units by status, the sums of its movement ledger, the hot stock and its
     * pending orders (redis-lua), and the named checks with {@code consistent}: true when every check is ok.
     */
    @GET
    @RolesAllowed(Roles.ADMIN)
    @Operation(summary = "Settlement report of an item", description = "Counters, orders and units by status, "
            + "ledger sums, the hot stock and its pending orders (redis-lua), and the named checks "
            + "(counters-balance, ledger-matches-counters, orders-match-counters, hot-stock-matches, not-oversold); "
            + "consistent is true when every check is ok. Admin only.")
    public SettlementReport report(
            @RestPath @Pattern(regexp = InputRules.SKU, message = InputRules.SKU_MESSAGE) String sku) {
        return reports.report(sku);
    }
}
