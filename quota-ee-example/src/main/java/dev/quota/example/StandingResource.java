package dev.quota.example;

import dev.quota.cdi.QuotaRequest;
import dev.quota.core.Customer;
import dev.quota.core.LimitStatus;
import dev.quota.core.QuotaService;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /api/v1/me/quota}: the caller's standing in every limit of its plan, read with the
 * injected service and the request's view of the quota decision.
 */
@Path("v1/me/quota")
@RequestScoped
public class StandingResource {

    @Inject
    QuotaService quotas;

    @Inject
    QuotaRequest quota;

    /** The caller's id, plan and, per limit, what is left. */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Map<String, Object> standing() {
        Customer customer = quota.customer();
        Map<String, Object> out = new LinkedHashMap<>();
        if (customer == null) {
            return out;
        }
        out.put("customer", customer.id());
        out.put("plan", customer.plan());
        List<Map<String, Object>> limits = new ArrayList<>();
        for (LimitStatus status : quotas.admin().standing(customer)) {
            limits.add(Map.of("policy", status.policy(), "capacity", status.limit().capacity(),
                    "remaining", status.remaining()));
        }
        out.put("limits", limits);
        return out;
    }
}
