package dev.quota.jaxrs;

import dev.quota.core.Caller;
import dev.quota.core.Identity;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.RequestFacts;
import dev.quota.jaxrs.internal.ProblemResponses;
import dev.quota.jaxrs.internal.ResourceChecks;
import dev.quota.jaxrs.internal.ResourceMethods;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Context;
import java.lang.reflect.Method;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides each request: finds the resource method it matched and that method's
 * {@link QuotaBinding} (handed on by the method's {@link MethodBinding}, else asked of the
 * runtime), reads the credential and the client's address, lets the service identify
 * the caller, takes tokens, and aborts with 400/401 (caller), 429 (rejected, or too many unknown
 * keys from the address), 422 (can never fit) or 503 (store unavailable, or the check itself
 * failed). For an {@link AmountLimit} method with a body that arrived with the headers, small
 * enough ({@link ArrivedBodies}), nothing is taken here: the whole decision (plan, rule, shared,
 * amount, in-flight leases) is one store call once the body is parsed ({@link AmountInterceptor}).
 * For one whose body is not all here yet, or is large, the plan is charged and the in-flight
 * leases taken now, in one store call, and the rest waits for the body;
 * a customer or address that already has {@link dev.quota.core.Identity#pendingBodies()} bodies on
 * their way here is answered 429 {@code too-many-pending-bodies} instead, without a store call
 * ({@link PendingBodies}). Leases are given back once the response has ended, off its thread
 * ({@link QuotaService#releaseLater}). One filter for every method, registered by {@link QuotaFeature} at
 * {@link QuotaFeature#PRIORITY}, after authentication: a plain filter is what every runtime
 * accepts from a feature.
 *
 * <p>A request whose resource method cannot be found is answered 503 and logged, never let
 * through uncounted.
 */
final class QuotaRequestFilter implements ContainerRequestFilter {

    private static final Logger log = LoggerFactory.getLogger(QuotaRequestFilter.class);

    private final QuotaService service;
    private final CallerResolver resolver;
    private final ClientAddress clientAddress;
    private final QuotaBindings bindings;
    private final CostSettling settling;
    private final PendingBodies pendingBodies;
    /** The largest body decided in one step when it arrived with its headers ({@link ArrivedBodies}); 0: none. */
    private final int arrivedBodyBytes;

    /** The runtime's proxy to the matched method, where it injects one into a registered filter. */
    @Context
    private @Nullable ResourceInfo resourceInfo;

    /** With the default largest body decided in one step ({@link ArrivedBodies#DEFAULT_MOST}). */
    QuotaRequestFilter(QuotaService service, CallerResolver resolver, ClientAddress clientAddress,
                       QuotaBindings bindings) {
        this(service, resolver, clientAddress, bindings, ArrivedBodies.DEFAULT_MOST);
    }

    QuotaRequestFilter(QuotaService service, CallerResolver resolver, ClientAddress clientAddress,
                       QuotaBindings bindings, int arrivedBodyBytes) {
        this.service = service;
        this.arrivedBodyBytes = arrivedBodyBytes;
        this.pendingBodies = new PendingBodies();
        this.resolver = resolver;
        this.clientAddress = clientAddress;
        this.bindings = bindings;
        this.settling = new CostSettling(service);
    }

    @Override
    public void filter(ContainerRequestContext request) {
        QuotaBinding binding;
        try {
            // bound at start-up (MethodBinding), else asked of the runtime
            binding = request.getProperty(MethodBinding.PROPERTY) instanceof QuotaBinding bound ? bound
                    : binding(request);
        } catch (RuntimeException e) {
            log.error("quota: cannot tell which resource method {} {} is for, so it is not let through uncounted;"
                    + " answering 503", request.getMethod(), path(request), e);
            request.abortWith(ProblemResponses.checkFailed(path(request)));
            return;
        }
        ResourceChecks.Check check = binding.check();
        EndpointRule endpoint = binding.endpoint();
        if (check != null) {
            check.filter(request);
        } else if (endpoint != null) {
            decide(request, endpoint);
        }
    }

    /**
     * The binding of the resource method {@code request} matched.
     *
     * @throws IllegalStateException if the runtime tells no resource method, or its annotations are wrong
     */
    private QuotaBinding binding(ContainerRequestContext request) {
        ResourceInfo matched = ResourceMethods.matched(request, resourceInfo);
        Class<?> resourceClass = matched == null ? null : matched.getResourceClass();
        Method method = matched == null ? null : matched.getResourceMethod();
        if (resourceClass == null || method == null) {
            throw new IllegalStateException("the runtime (" + request.getClass().getName() + ") told the quota filter"
                    + " no resource method: it neither injected ResourceInfo into the filter nor is a runtime whose"
                    + " request tells it");
        }
        return bindings.of(resourceClass, method);
    }

    private void decide(ContainerRequestContext request, EndpointRule endpoint) {
        QuotaDecision decision;
        String rule;
        Caller caller;
        try {
            QuotaConfig config = service.config();
            Identity identity = config.identity();
            caller = service.identify(facts(request, identity));
            switch (caller.kind()) {
                case BLOCKED -> {
                    request.abortWith(ProblemResponses.tooManyFailedKeys(
                            Objects.requireNonNull(caller.refusal(), "a blocked caller carries its refusal")));
                    return;
                }
                case UNKNOWN_CREDENTIAL -> {
                    request.abortWith(ProblemResponses.unknownKey(identity.header()));
                    return;
                }
                case MISSING_CREDENTIAL -> {
                    request.abortWith(ProblemResponses.missingKey(identity.header()));
                    return;
                }
                case AMBIGUOUS_CREDENTIAL -> {
                    request.abortWith(ProblemResponses.badKey(identity.header()));
                    return;
                }
                default -> {
                }
            }
            rule = endpoint.rule(config, request.getMethod());
            request.setProperty(QuotaFeature.CUSTOMER, caller.customer());
            if (rule != null) {
                request.setProperty(QuotaFeature.RULE, rule);
            }
            String amounts = endpoint.amountLimits();
            if (amounts != null && PendingBodies.announced(request) && ArrivedBodies.arrived(request, arrivedBodyBytes)) {
                // the body came with the headers: nothing to wait for, so no place among the pending
                // bodies and no charge on arrival; everything in one store call once it is parsed
                AmountInterceptor.whole(request, caller, rule, amounts, path(request));
                ResponseEnd.onEnd(request, ending -> {
                    if (request.getProperty(QuotaFeature.DECISION) instanceof QuotaDecision whole) {
                        service.releaseLater(whole);
                    }
                });
                return;
            }
            if (amounts != null && PendingBodies.announced(request)) {
                // a bounded place among the pending bodies, then the plan's tokens and leases now, in
                // one store call; the rest once the body is read, with its amount
                PendingBodies.Ticket ticket = pendingBodies.enter(caller, identity);
                if (ticket == null) {
                    request.abortWith(ProblemResponses.tooManyPendingBodies(identity.pendingBodies(), path(request)));
                    return;
                }
                try {
                    decision = AmountInterceptor.beforeBody(service, request, caller, rule, amounts, path(request),
                            ticket);
                } catch (RuntimeException e) {
                    ticket.leave();
                    throw e;
                }
                releaseAtEnd(request, decision);
                if (decision.allowed()) {
                    // given back once the body has been read, at the latest when the response ends
                    ResponseEnd.onEnd(request, ending -> ticket.leave());
                    return;
                }
                ticket.leave();
            } else {
                decision = service.decide(caller, rule, null);
                releaseAtEnd(request, decision);
            }
        } catch (RuntimeException e) {
            // a bug or misconfiguration (no client address, a customer on an unknown plan, an unknown
            // rule): the client gets a problem without details, the log gets the stack trace
            log.error("quota check failed for {} {} ({}); answering 503", request.getMethod(), path(request),
                    endpoint.describe(), e);
            request.abortWith(ProblemResponses.checkFailed(path(request)));
            return;
        }
        request.setProperty(QuotaFeature.DECISION, decision);
        if (!decision.allowed()) {
            request.abortWith(ProblemResponses.forDecision(decision, path(request)));
        } else if (endpoint.amountLimits() != null) {
            // an amount endpoint without a body: charged like any request, but there is no amount to check
            request.abortWith(ProblemResponses.invalidAmount("the body is missing", path(request)));
        } else {
            settling.admitted(request, decision, endpoint);
        }
    }

    /**
     * Gives back the in-flight leases {@code decision} holds once the response has been written or
     * failed, without holding up the thread that wrote it.
     */
    private void releaseAtEnd(ContainerRequestContext request, QuotaDecision decision) {
        if (decision.receipt().holdsLeases()) {
            ResponseEnd.onEnd(request, ending -> service.releaseLater(decision));
        }
    }

    /** What the request tells about its caller: credential, peer, proxy and end-user headers. */
    private RequestFacts facts(ContainerRequestContext request, Identity identity) {
        return CallerFacts.of(request, identity, resolver, clientAddress);
    }

    /** The request path as sent (percent-encoded, without the query). */
    private static String path(ContainerRequestContext request) {
        return request.getUriInfo().getRequestUri().getRawPath();
    }
}
