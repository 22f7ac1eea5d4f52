package dev.quota.jaxrs;

import dev.quota.core.AllowList;
import dev.quota.core.Customer;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.net.ClientAddresses;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Response;
import java.net.InetAddress;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides each request of one resource method: refuses addresses blocked for guessing keys,
 * resolves the caller, skips allow-listed callers, takes tokens, and aborts with 400/401 (caller),
 * 429 (rejected, or too many unknown keys) or 503 (store unavailable, or the check itself failed).
 * Registered by {@link QuotaBinding} at {@link QuotaFeature#PRIORITY}, after authentication.
 */
final class QuotaRequestFilter implements ContainerRequestFilter {

    private static final Logger log = LoggerFactory.getLogger(QuotaRequestFilter.class);

    /** What {@link ClientAddress#unknown()} answers: one address for everybody, never blocked as a whole. */
    private static final String UNKNOWN_ADDRESS = "unknown";

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
            QuotaConfig config = service.config();
            String header = config.identity().header();
            String key = request.getHeaderString(header);
            boolean presentedKey = key != null && !key.isEmpty();
            // A blocked address may not test keys, valid ones included; the check is in memory.
            String address = presentedKey ? address(request) : null;
            if (address != null && !UNKNOWN_ADDRESS.equals(address)) {
                QuotaDecision blocked = service.peekFailedKeys(address);
                if (blocked.outcome() == QuotaDecision.Outcome.REJECTED) {
                    request.abortWith(Problems.tooManyFailedKeys(blocked));
                    return;
                }
            }
            Caller caller = Objects.requireNonNull(resolver.resolve(request, service, clientAddress),
                    "the caller resolver returned null");
            switch (caller.kind()) {
                case BAD_KEY:
                    request.abortWith(failedKey(request, address, Problems.badKey(header)));
                    return;
                case UNKNOWN_KEY:
                    request.abortWith(failedKey(request, address, Problems.unknownKey(header)));
                    return;
                case MISSING:
                    request.abortWith(Problems.missingKey(header));
                    return;
                default:
                    break;
            }
            customer = Objects.requireNonNull(caller.customer(), "customer");
            rule = endpoint.rule(config, request.getMethod());
            decision = allowListed(request, config.allow(), customer, presentedKey ? key : null, address)
                    ? QuotaDecision.bypassed()
                    : service.decide(customer, rule);
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

    /** {@code answer} while the address may still guess; 429 once it has guessed too often. */
    private Response failedKey(ContainerRequestContext request, @Nullable String knownAddress, Response answer) {
        String address = knownAddress != null ? knownAddress : address(request);
        QuotaDecision decision = service.recordFailedKey(address);
        // UNAVAILABLE cannot stop a 401 from being a 401: only a real rejection turns it into 429
        return decision.outcome() == QuotaDecision.Outcome.REJECTED ? Problems.tooManyFailedKeys(decision) : answer;
    }

    /**
     * Whether the allow-list names the caller's API key or address; customer ids the service checks
     * itself in {@link QuotaService#decide}. Nothing is hashed or parsed when nothing is listed.
     */
    private boolean allowListed(ContainerRequestContext request, AllowList allow, Customer customer,
                                @Nullable String key, @Nullable String knownAddress) {
        if (allow.apiKeys().isEmpty() && allow.cidrs().isEmpty()) {
            return false;
        }
        String keyHash = key != null && !allow.apiKeys().isEmpty() && ApiKeyResolver.wellFormed(key)
                ? QuotaService.sha256Hex(key) : null;
        InetAddress address = null;
        if (!allow.cidrs().isEmpty()) {
            address = ClientAddresses.parse(knownAddress != null ? knownAddress : address(request));
        }
        return service.isAllowListed(customer.id(), keyHash, address);
    }

    private String address(ContainerRequestContext request) {
        String address = clientAddress.of(request);
        return address == null || address.isEmpty() ? UNKNOWN_ADDRESS : address;
    }

    /** The request path as sent (percent-encoded, without the query). */
    private static String path(ContainerRequestContext request) {
        return request.getUriInfo().getRequestUri().getRawPath();
    }
}
