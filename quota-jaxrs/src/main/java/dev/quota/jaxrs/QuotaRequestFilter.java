package dev.quota.jaxrs;

import dev.quota.core.Customer;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides each request of one resource method: resolves the caller, takes tokens, and aborts with
 * 400/401 (caller), 429 (rejected) or 503 (store unavailable, or the check itself failed).
 * Registered by {@link QuotaBinding} at {@link QuotaFeature#PRIORITY}, after authentication.
 */
final class QuotaRequestFilter implements ContainerRequestFilter {

    private static final Logger log = LoggerFactory.getLogger(QuotaRequestFilter.class);

    private final QuotaService service;
    private final CallerResolver resolver;
    private final ClientAddress clientAddress;
    private final EndpointRule endpoint;

    QuotaRequestFilter(QuotaService service, CallerResolver resolver, ClientAddress clientAddress,
                       EndpointRule endpoint) {
        this.service = service;
        this.resolver = resolver;
        this.clientAddress = clientAddress;
        this.endpoint = endpoint;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        Customer customer;
        QuotaDecision decision;
        String rule = null;
        try {
            Caller caller = Objects.requireNonNull(resolver.resolve(request, service, clientAddress),
                    "the caller resolver returned null");
            String header = service.config().identity().header();
            switch (caller.kind()) {
                case BAD_KEY:
                    request.abortWith(Problems.badKey(header));
                    return;
                case UNKNOWN_KEY:
                    request.abortWith(Problems.unknownKey(header));
                    return;
                case MISSING:
                    request.abortWith(Problems.missingKey(header));
                    return;
                default:
                    break;
            }
            customer = Objects.requireNonNull(caller.customer(), "customer");
            rule = endpoint.rule(service.config(), request.getMethod());
            decision = service.decide(customer, rule);
        } catch (RuntimeException e) {
            // A bug or misconfiguration (a customer on an unknown plan, an unknown rule): the client
            // gets a problem without details, the log gets the stack trace.
            log.error("quota check failed for {} {} ({}); answering 503", request.getMethod(), path(request),
                    endpoint.describe(), e);
            request.abortWith(Problems.checkFailed(path(request)));
            return;
        }
        request.setProperty(QuotaFeature.CUSTOMER, customer);
        request.setProperty(QuotaFeature.DECISION, decision);
        if (rule != null) {
            request.setProperty(QuotaFeature.RULE, rule);
        }
        if (!decision.allowed()) {
            request.abortWith(Problems.forDecision(decision, path(request)));
        }
    }

    /** The request path as sent (percent-encoded, without the query). */
    private static String path(ContainerRequestContext request) {
        return request.getUriInfo().getRequestUri().getRawPath();
    }
}
