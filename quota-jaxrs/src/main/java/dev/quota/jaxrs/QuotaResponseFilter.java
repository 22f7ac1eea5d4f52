package dev.quota.jaxrs;

import dev.quota.core.LimitStatus;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.jaxrs.internal.RateLimitHeaders;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adds the quota headers to responses of admitted requests: {@code RateLimit-Policy},
 * {@code RateLimit} and {@code X-RateLimit-*}; besides them {@code Quota-Status}:
 * <ul>
 *   <li>{@code unenforced} when the store was down and the request was let through (no other headers);
 *   <li>{@code bypassed} for an allow-listed caller or a disabled config (no other headers);
 *   <li>{@code shadow-rejected; policy="free-burst"} when a limit in shadow mode would have rejected
 *       the request, with the usual headers.
 * </ul>
 * A 429 keeps only its own headers: {@code r>0} beside a 429 would contradict it.
 *
 * <p>An admitted request that the resource then refused (any 4xx or 5xx: the bank declined the
 * transfer) gets back what it took from the endpoint's rule, shared and amount limits, exactly as
 * its decision's receipt says: a refused transfer does not count as a transfer. Its plan tokens stay
 * spent: every request that reaches a resource costs its caller, so a flood of refused requests is
 * limited like any other. A request of an {@link AmountLimit} method that was answered before its
 * body was read (by an authorization filter) is charged here, the same way.
 *
 * <p>Nothing here turns an answer into a 500: when charging or refunding fails (a store that throws
 * where it should not, a rule removed by a reload between request and response), the failure is
 * logged at ERROR and the response the client was already given stands (after a failed refund,
 * with its quota headers; after a failed charge, without).
 */
final class QuotaResponseFilter implements ContainerResponseFilter {

    static final String QUOTA_STATUS = "Quota-Status";

    private static final Logger log = LoggerFactory.getLogger(QuotaResponseFilter.class);

    private final QuotaService service;

    QuotaResponseFilter(QuotaService service) {
        this.service = service;
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        try {
            settle(request, response);
        } catch (RuntimeException e) {
            // the answer is decided already; replacing it with a 500 would tell the client nothing
            log.error("quota: settling {} {} (status {}) failed; the response stands without quota headers",
                    request.getMethod(), request.getUriInfo().getRequestUri().getRawPath(), response.getStatus(), e);
        }
    }

    /** Charges a request answered before its body, refunds a refused one, and adds the headers. */
    private void settle(ContainerRequestContext request, ContainerResponseContext response) {
        if (request.getProperty(QuotaFeature.PENDING) instanceof AmountInterceptor.Pending pending) {
            // answered before its body was read (an authorization filter refused it): still a request
            request.removeProperty(QuotaFeature.PENDING);
            request.setProperty(QuotaFeature.DECISION, pending.withoutAmount(service));
        }
        if (!(request.getProperty(QuotaFeature.DECISION) instanceof QuotaDecision decision)) {
            return;
        }
        QuotaDecision.Outcome outcome = decision.outcome();
        int status = response.getStatus();
        if (decision.allowed() && status >= 400 && decision.receipt().refundable()) {
            try {
                service.refund(decision);
            } catch (RuntimeException e) {
                // a store failure is logged by the refund itself; this is a store that throws a bug
                log.error("quota: could not give back what {} {} took; its {} stands",
                        request.getMethod(), request.getUriInfo().getRequestUri().getRawPath(), status, e);
            }
        }
        if (outcome == QuotaDecision.Outcome.UNENFORCED) {
            response.getHeaders().putSingle(QUOTA_STATUS, "unenforced");
        } else if (outcome == QuotaDecision.Outcome.BYPASSED) {
            response.getHeaders().putSingle(QUOTA_STATUS, "bypassed");
        } else if (outcome == QuotaDecision.Outcome.SHADOW_REJECTED && status != 429) {
            LimitStatus violated = Objects.requireNonNull(decision.violated(), "a shadow rejection names its limit");
            response.getHeaders().putSingle(QUOTA_STATUS,
                    "shadow-rejected; policy=" + RateLimitHeaders.quoted(violated.policy()));
            RateLimitHeaders.addAllowed(response.getHeaders(), decision);
        } else if (outcome == QuotaDecision.Outcome.ALLOWED && status != 429) {
            RateLimitHeaders.addAllowed(response.getHeaders(), decision);
        }
    }
}
