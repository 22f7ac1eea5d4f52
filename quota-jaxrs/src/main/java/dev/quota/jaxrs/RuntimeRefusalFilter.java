package dev.quota.jaxrs;

import dev.quota.core.Caller;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.jaxrs.internal.ProblemResponses;
import dev.quota.jaxrs.internal.RateLimitHeaders;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.Response;
import java.lang.annotation.Annotation;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts the requests the runtime refuses before any resource method runs, so that no quota filter
 * saw them: {@code 405} (a method the path does not have), {@code 406} (a media type it cannot
 * produce), {@code 415} (a body type it does not take). Each costs its caller one token of its plan,
 * like any request; past the plan's limit the answer becomes the {@code 429} any refusal gets, so a
 * flood of {@code Content-Type: text/plain} transfers is limited like a flood of transfers.
 *
 * <p>A global response filter: it runs for the runtime's own error answers too. A request the quota
 * filter already decided carries its decision and is left alone; one without a customer (an unknown
 * key, already counted as a guess) keeps the runtime's answer.
 */
final class RuntimeRefusalFilter implements ContainerResponseFilter {

    private static final Logger log = LoggerFactory.getLogger(RuntimeRefusalFilter.class);

    private final QuotaService service;
    private final CallerResolver resolver;
    private final ClientAddress clientAddress;

    RuntimeRefusalFilter(QuotaService service, CallerResolver resolver, ClientAddress clientAddress) {
        this.service = service;
        this.resolver = resolver;
        this.clientAddress = clientAddress;
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        if (!refusedByRuntime(response.getStatus()) || request.getProperty(QuotaFeature.DECISION) != null
                || request.getProperty(QuotaFeature.CUSTOMER) != null
                || request.getProperty(QuotaFeature.PENDING) != null) {
            return;
        }
        QuotaDecision decision;
        try {
            Caller caller = service.identify(CallerFacts.of(request, service.config().identity(), resolver,
                    clientAddress));
            if (!caller.counted()) {
                return;
            }
            decision = service.decide(caller, null, null);
        } catch (RuntimeException e) {
            // the runtime's own answer stands; the quota filter logs the same failure on real requests
            log.warn("a request the runtime answered {} could not be counted: {}", response.getStatus(), e.toString());
            return;
        }
        request.setProperty(QuotaFeature.DECISION, decision);
        if (decision.receipt().holdsLeases()) {
            ResponseEnd.onEnd(request, ending -> service.releaseLater(decision));
        }
        if (decision.allowed()) {
            RateLimitHeaders.addAllowed(response.getHeaders(), decision);
            return;
        }
        Response refusal = ProblemResponses.forDecision(decision, request.getUriInfo().getRequestUri().getRawPath());
        response.setStatus(refusal.getStatus());
        response.getHeaders().remove("Allow");
        for (Map.Entry<String, List<Object>> header : refusal.getHeaders().entrySet()) {
            response.getHeaders().put(header.getKey(), header.getValue());
        }
        response.setEntity(refusal.getEntity(), new Annotation[0], refusal.getMediaType());
    }

    /** 405, 406 or 415 (a status compared as an int: every response passes here). */
    private static boolean refusedByRuntime(int status) {
        return status == 405 || status == 406 || status == 415;
    }
}
