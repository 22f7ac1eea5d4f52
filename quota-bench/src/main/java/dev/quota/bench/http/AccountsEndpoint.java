package dev.quota.bench.http;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * The demo's read route, {@code GET /api/v1/accounts/{id}}, answering a small fixed-shape JSON
 * account, so the measured difference between the two servers is the quota filter alone.
 */
@Path("/api/v1/accounts/{id}")
public final class AccountsEndpoint {

    /** The account as JSON. */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public String get(@PathParam("id") String id) {
        return "{\"id\":\"" + id + "\",\"currency\":\"EUR\",\"balance\":\"1234.56\",\"status\":\"open\"}";
    }
}
