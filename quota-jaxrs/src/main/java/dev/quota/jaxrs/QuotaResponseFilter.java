package dev.quota.jaxrs;

import dev.quota.core.Customer;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;

/**
 * Adds the quota headers to responses of admitted requests: {@code RateLimit-Policy},
 * {@code RateLimit} and {@code X-RateLimit-*}, or {@code Quota-Status: unenforced} when the store
 * was down and the request was let through. A 429 (from {@link QuotaExceededException} or the
 * resource itself) keeps only its own headers: {@code r>0} beside a 429 would contradict it.
 *
 * <p>A request the filter admitted but a later check rejected (its transfer amount was over the
 * daily limit, so the resource answered 429) gets the tokens the filter took back: a rejected
 * request uses no quota.
 */
final class QuotaResponseFilter implements ContainerResponseFilter {

    static final String QUOTA_STATUS = "Quota-Status";

    private final QuotaService service;

    QuotaResponseFilter(QuotaService service) {
        this.service = service;
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        if (!(request.getProperty(QuotaFeature.DECISION) instanceof QuotaDecision decision)) {
            return;
        }
        if (decision.outcome() == QuotaDecision.Outcome.UNENFORCED) {
            response.getHeaders().putSingle(QUOTA_STATUS, "unenforced");
        } else if (decision.outcome() == QuotaDecision.Outcome.ALLOWED && response.getStatus() != 429) {
            RateLimitHeaders.addAllowed(response.getHeaders(), decision);
        } else if (decision.outcome() == QuotaDecision.Outcome.ALLOWED
                && request.getProperty(QuotaFeature.CUSTOMER) instanceof Customer customer) {
            Object rule = request.getProperty(QuotaFeature.RULE);
            service.refund(customer, rule instanceof String name ? name : null);
        }
    }
}
