package dev.quota.jaxrs;

import dev.quota.core.Customer;
import dev.quota.core.QuotaService;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.SecurityContext;
import java.security.Principal;
import java.util.Objects;
import java.util.function.Function;

/** {@link CallerResolver#principal}: the authenticated user as customer {@code user:<name>}. */
final class PrincipalResolver implements CallerResolver {

    private final Function<String, String> planForPrincipal;

    PrincipalResolver(Function<String, String> planForPrincipal) {
        this.planForPrincipal = Objects.requireNonNull(planForPrincipal, "planForPrincipal");
    }

    @Override
    public Caller resolve(ContainerRequestContext request, QuotaService service, ClientAddress clientAddress) {
        SecurityContext security = request.getSecurityContext();
        Principal principal = security == null ? null : security.getUserPrincipal();
        String name = principal == null ? null : principal.getName();
        if (name == null || name.isEmpty()) {
            return Anonymous.caller(request, service, clientAddress);
        }
        String plan = planForPrincipal.apply(name);
        return plan == null ? Caller.unknownKey() : Caller.identified(Customer.of("user:" + name, plan));
    }
}
