package dev.quota.jaxrs;

import dev.quota.core.Customer;
import dev.quota.core.LimitStatus;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import java.util.Objects;

/**
 * Adds the quota headers to responses of admitted requests: {@code RateLimit-Policy},
 * {@code RateLimit} and {@code X-RateLimit-*}; besides them {@code Quota-Status}:
 * <ul>
 *   <li>{@code unenforced} when the store was down and the request was let through (no other headers);
 *   <li>{@code bypassed} for an allow-listed caller or a disabled config (no other headers);
 *   <li>{@code shadow-rejected; policy="free-burst"} when a limit in shadow mode would have rejected
 *       the request, with the usual headers.
 * </ul>
 * A 429 (from {@link QuotaExceededException} or the resource itself) keeps only its own headers:
 * {@code r>0} beside a 429 would contradict it.
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
        QuotaDecision.Outcome outcome = decision.outcome();
        if (outcome == QuotaDecision.Outcome.UNENFORCED) {
            response.getHeaders().putSingle(QUOTA_STATUS, "unenforced");
        } else if (outcome == QuotaDecision.Outcome.BYPASSED) {
            response.getHeaders().putSingle(QUOTA_STATUS, "bypassed");
        } else if (outcome == QuotaDecision.Outcome.SHADOW_REJECTED && response.getStatus() != 429) {
            LimitStatus violated = Objects.requireNonNull(decision.violated(), "a shadow rejection names its limit");
            response.getHeaders().putSingle(QUOTA_STATUS,
                    "shadow-rejected; policy=" + RateLimitHeaders.quoted(violated.policy()));
            RateLimitHeaders.addAllowed(response.getHeaders(), decision);
        } else if (outcome == QuotaDecision.Outcome.ALLOWED && response.getStatus() != 429) {
            RateLimitHeaders.addAllowed(response.getHeaders(), decision);
        } else if (outcome == QuotaDecision.Outcome.ALLOWED
                && request.getProperty(QuotaFeature.CUSTOMER) instanceof Customer customer) {
            Object rule = request.getProperty(QuotaFeature.RULE);
            service.refund(customer, rule instanceof String name ? name : null);
        }
    }
}
