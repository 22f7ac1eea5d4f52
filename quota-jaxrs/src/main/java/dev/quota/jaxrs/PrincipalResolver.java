package dev.quota.jaxrs;

import dev.quota.core.Credential;
import dev.quota.core.Identity;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.SecurityContext;
import java.security.Principal;

/** {@link CallerResolver#principal()}: the authenticated user's name. */
final class PrincipalResolver implements CallerResolver {

    static final PrincipalResolver INSTANCE = new PrincipalResolver();

    private PrincipalResolver() {
    }

    @Override
    public Credential resolve(ContainerRequestContext request, Identity identity) {
        SecurityContext security = request.getSecurityContext();
        Principal principal = security == null ? null : security.getUserPrincipal();
        String name = principal == null ? null : principal.getName();
        return name == null || name.isEmpty() ? Credential.none() : Credential.principal(name);
    }
}
