package dev.quota.cdi;

import dev.quota.core.Customer;
import dev.quota.core.QuotaDecision;
import dev.quota.jaxrs.QuotaFeature;
import dev.quota.jaxrs.QuotaMeter;
import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.container.ContainerRequestContext;
import org.jspecify.annotations.Nullable;

/**
 * What the quota filter decided for the current request, for a resource that checks an amount of
 * its own or shows the caller's standing:
 *
 * <pre>{@code
 * @Inject QuotaService quotas;
 * @Inject QuotaRequest quota;
 *
 * @GET @Path("me/quota")
 * public List<LimitStatus> standing() {
 *     return quotas.admin().standing(quota.customer());
 * }
 * }</pre>
 *
 * Read lazily: for an {@link dev.quota.jaxrs.AmountLimit} method the decision is taken once the
 * body is read, and is here from then on. Outside a request the container refuses access.
 */
@RequestScoped
public class QuotaRequest {

    private @Nullable ContainerRequestContext request;

    /** For the container. */
    public QuotaRequest() {
    }

    /** Set by the quota filter as the request comes in. */
    void bind(ContainerRequestContext request) {
        this.request = request;
    }

    /** Whether quota's filters saw this request (the Jakarta REST application registered them). */
    boolean seen() {
        return request != null;
    }

    /**
     * The customer the request was counted against (an account, a principal, or an anonymous
     * client address); null when the quota filter did not run for the request.
     */
    public @Nullable Customer customer() {
        ContainerRequestContext context = request;
        return context == null ? null : QuotaFeature.customer(context);
    }

    /** The decision taken for the request; null before it is taken or when the filter did not run. */
    public @Nullable QuotaDecision decision() {
        ContainerRequestContext context = request;
        return context == null ? null : QuotaFeature.decision(context);
    }

    /**
     * Who decided instead of the shared store, and why ({@link QuotaDecision#fallback()}): the
     * failure policy during a store outage, or a 503 for a store call that failed; null when the
     * shared store decided, or before the decision.
     */
    public QuotaDecision.@Nullable Fallback fallback() {
        QuotaDecision decision = decision();
        return decision == null ? null : decision.fallback();
    }

    /**
     * Sets the request's actual cost in plan tokens, for a rule whose cost is an estimate: once the
     * response has been written, the difference from the rule's cost is taken from the plan buckets
     * the request was charged (into debt when they lack it) or given back, once
     * ({@link dev.quota.core.QuotaService#settle}). A response that fails (status 400 or above) is
     * refunded instead. A later call replaces the cost; {@link #meter()} adds to it as rows are
     * produced.
     *
     * @throws IllegalArgumentException if {@code actual} is negative
     * @throws IllegalStateException    if the quota filter did not see the request
     */
    public void settle(long actual) {
        meter().actual(actual);
    }

    /**
     * The meter of the request's actual cost ({@link QuotaMeter}), for a streaming response that
     * adds to it as it writes.
     *
     * @throws IllegalStateException if the quota filter did not see the request
     */
    public QuotaMeter meter() {
        ContainerRequestContext context = request;
        if (context == null) {
            throw new IllegalStateException("the quota filter did not see this request: nothing to settle");
        }
        return QuotaFeature.meter(context);
    }

    /** The rule the request was counted on, or null for the plan limits only. */
    public @Nullable String rule() {
        ContainerRequestContext context = request;
        return context != null && context.getProperty(QuotaFeature.RULE) instanceof String rule ? rule : null;
    }
}
