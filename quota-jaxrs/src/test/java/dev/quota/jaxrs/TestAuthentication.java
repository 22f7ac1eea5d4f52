package dev.quota.jaxrs;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.SecurityContext;
import java.security.Principal;

/** Stands in for real authentication: the user named in {@code X-Test-User}, if any. */
final class TestAuthentication implements ContainerRequestFilter {

    @Override
    public void filter(ContainerRequestContext request) {
        String user = request.getHeaderString("X-Test-User");
        if (user == null) {
            return;
        }
        Principal principal = () -> user;
        request.setSecurityContext(new SecurityContext() {
            @Override
            public Principal getUserPrincipal() {
                return principal;
            }

            @Override
            public boolean isUserInRole(String role) {
                return false;
            }

            @Override
            public boolean isSecure() {
                return false;
            }

            @Override
            public String getAuthenticationScheme() {
                return "test";
            }
        });
    }
}
