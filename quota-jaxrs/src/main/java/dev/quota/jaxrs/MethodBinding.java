package dev.quota.jaxrs;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;

/**
 * Hands the quota filter the {@link QuotaBinding} of the resource method a request matched, worked
 * out when the application started: one instance per resource method, bound to it by
 * {@link QuotaBindings} (a {@code DynamicFeature}), run just before the quota filter. With it, a
 * request costs the quota filter one property read instead of asking the runtime which method
 * matched (Jersey's injected {@code ResourceInfo} looks the request up on every call).
 *
 * <p>A runtime that runs no dynamic feature a feature registered (Quarkus REST) runs none of these:
 * the quota filter then asks the runtime, as it does for a method bound at no start-up (a
 * sub-resource a locator returns).
 */
final class MethodBinding implements ContainerRequestFilter {

    /** The request property holding the matched method's {@link QuotaBinding}; server code only sets it. */
    static final String PROPERTY = "dev.quota.jaxrs.binding";

    /** Just before the quota filter. */
    static final int PRIORITY = QuotaFeature.PRIORITY - 1;

    private final QuotaBinding binding;

    MethodBinding(QuotaBinding binding) {
        this.binding = binding;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        request.setProperty(PROPERTY, binding);
    }

    /** The binding this filter hands on. */
    QuotaBinding binding() {
        return binding;
    }
}
