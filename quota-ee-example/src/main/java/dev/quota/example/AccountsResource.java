package dev.quota.example;

import dev.quota.jaxrs.Quota;
import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /api/v1/accounts/{id}}: one request of the caller's plan. {@code GET .../export}:
 * rule {@code export} by {@link Quota @Quota}, which costs 10 requests of the plan.
 */
@Path("v1/accounts/{id}")
@RequestScoped
public class AccountsResource {

    /** The account, made up: the example keeps no balances. */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Map<String, Object> get(@PathParam("id") String id) {
        return Map.of("id", id, "currency", "EUR", "balance", "1250.00");
    }

    /** The account's transactions. */
    @GET
    @Path("export")
    @Quota("export")
    @Produces(MediaType.APPLICATION_JSON)
    public List<Map<String, Object>> export(@PathParam("id") String id) {
        return List.of(Map.of("account", id, "amount", "-12.50", "text", "coffee"),
                Map.of("account", id, "amount", "1000.00", "text", "salary"));
    }
}
