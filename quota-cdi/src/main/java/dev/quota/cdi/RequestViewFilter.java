package dev.quota.cdi;

import jakarta.enterprise.context.ContextNotActiveException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;

/** Hands each request to the {@link QuotaRequest} of its request scope. */
final class RequestViewFilter implements ContainerRequestFilter {

    /** The container's proxy: each call reaches the current request's instance. */
    private final QuotaRequest view;

    RequestViewFilter(QuotaRequest view) {
        this.view = view;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        try {
            view.bind(request);
        } catch (ContextNotActiveException noRequestScope) {
            // a runtime without CDI's request scope around Jakarta REST requests: nothing to show
        }
    }
}
