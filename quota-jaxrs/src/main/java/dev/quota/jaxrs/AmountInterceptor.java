package dev.quota.jaxrs;

import dev.quota.core.Amount;
import dev.quota.core.Caller;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.jaxrs.internal.ProblemResponses;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ReaderInterceptor;
import jakarta.ws.rs.ext.ReaderInterceptorContext;
import java.io.IOException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides a request of an {@link AmountLimit} method once its body is read. A small body that
 * arrived with its headers ({@link ArrivedBodies}) is decided here whole, in one store call: plan,
 * rule, shared and amount limits and the in-flight leases ({@code QuotaService.decide}). Any other
 * body is decided in two steps ({@code QuotaService.decideBeforeBody}):
 * the plan's tokens when the request arrives ({@link #beforeBody}, from the request filter), so a
 * caller whose plan is spent is refused before its body is read and a slow body costs its sender at
 * once; then, once the body is read, the rule's limits and the amount together, in one store call.
 * A body that cannot be read, or that carries no valid amount, still costs the request its rule's
 * tokens, then the error is answered: 400 {@code invalid-amount}, 400 {@code unreadable-body} for a
 * body cut short, 408 {@code body-timeout} for one that stalled (each logged one line, sampled:
 * {@link ClientErrors}), or the runtime's own answer. A body cut short or stalled keeps its plan's
 * request token; its rule's tokens are given back with its 4xx like any refused request's
 * ({@link QuotaResponseFilter}), its in-flight leases when its error response ends, and its place
 * among the pending bodies as soon as the read fails.
 */
final class AmountInterceptor implements ReaderInterceptor {

    private static final Logger log = LoggerFactory.getLogger(AmountInterceptor.class);

    private final QuotaService service;

    AmountInterceptor(QuotaService service) {
        this.service = service;
    }

    /**
     * A decision the request filter left for the body: who, on which rule, the method's amount
     * limits ({@link AmountLimit#value()}), the request path, and what the request was charged when
     * it arrived.
     */
    record Pending(Caller caller, @Nullable String rule, String limits, String path,
                   @Nullable QuotaDecision beforeBody, PendingBodies.@Nullable Ticket ticket) {

        /** Gives back its place among the pending bodies, if it holds one. */
        void leave() {
            if (ticket != null) {
                ticket.leave();
            }
        }

        /**
         * What the request costs without an amount (its body unreadable or never read): the rest
         * of a decision in two steps, or the whole decision of one whose body had arrived.
         */
        QuotaDecision withoutAmount(QuotaService service) {
            return beforeBody == null ? service.decide(caller, rule, null)
                    : service.decideAfterBody(caller, rule, null, beforeBody);
        }

        /** Its decision with {@code amount}: the second step, or the whole decision in one store call. */
        QuotaDecision with(QuotaService service, Amount amount) {
            return beforeBody == null ? service.decide(caller, rule, amount)
                    : service.decideAfterBody(caller, rule, amount, beforeBody);
        }
    }

    /**
     * Leaves a request whose body arrived with its headers ({@link ArrivedBodies}) to be decided
     * whole once the body is read, in one store call: nothing is taken now.
     */
    static void whole(ContainerRequestContext request, Caller caller, @Nullable String rule, String limits,
                      String path) {
        request.setProperty(QuotaFeature.PENDING, new Pending(caller, rule, limits, path, null, null));
    }

    /**
     * The first step, taken by the request filter for a request with a body: the plan's tokens now.
     * Admitted: the rest is left pending for the body. Refused: the filter answers it, the body unread.
     */
    static QuotaDecision beforeBody(QuotaService service, ContainerRequestContext request, Caller caller,
                                    @Nullable String rule, String limits, String path,
                                    PendingBodies.Ticket ticket) {
        QuotaDecision decision = service.decideBeforeBody(caller, rule);
        if (decision.allowed()) {
            request.setProperty(QuotaFeature.PENDING, new Pending(caller, rule, limits, path, decision, ticket));
        }
        return decision;
    }

    @Override
    public Object aroundReadFrom(ReaderInterceptorContext context) throws IOException {
        if (!(context.getProperty(QuotaFeature.PENDING) instanceof Pending pending)) {
            return context.proceed(); // decided already (another read of the body), or not ours to decide
        }
        context.removeProperty(QuotaFeature.PENDING);
        String limits = pending.limits();
        Object entity;
        try {
            entity = context.proceed();
        } catch (IOException | RuntimeException e) {
            pending.leave();
            charge(context, pending); // an unreadable body was still a request
            // cut short, broken off or stalled by the client: its error, answered 400 or 408 while the
            // connection lasts and logged one line, sampled; a parse error stays the reader's to answer
            Response clientError = ClientErrors.bodyFailure(pending.path(), e);
            if (clientError != null) {
                throw new WebApplicationException(clientError);
            }
            throw e;
        }
        pending.leave(); // read: no longer waiting for the client
        Amount amount;
        try {
            amount = amountOf(entity, limits);
        } catch (InvalidAmount e) {
            QuotaDecision charged = charge(context, pending);
            if (!charged.allowed()) {
                throw new QuotaExceededException(charged);
            }
            throw new WebApplicationException(ProblemResponses.invalidAmount(String.valueOf(e.getMessage()), pending.path()));
        } catch (RuntimeException e) {
            // the entity's own quotaAmount() or quotaQualifier() failed: a bug, not the client's doing
            charge(context, pending);
            log.error("quota check failed for {} ({}): the body's amount could not be read; answering 503",
                    pending.path(), limits, e);
            throw new WebApplicationException(ProblemResponses.checkFailed(pending.path()));
        }
        QuotaDecision decision;
        try {
            decision = pending.with(service, amount);
        } catch (RuntimeException e) {
            log.error("quota check failed for {} ({}); answering 503", pending.path(), limits, e);
            throw new WebApplicationException(ProblemResponses.checkFailed(pending.path()));
        }
        context.setProperty(QuotaFeature.DECISION, decision);
        if (!decision.allowed()) {
            throw new QuotaExceededException(decision);
        }
        return entity;
    }

    /** The request's own limits without the amount: what a refused or unreadable body costs. */
    private QuotaDecision charge(ReaderInterceptorContext context, Pending pending) {
        try {
            QuotaDecision decision = pending.withoutAmount(service);
            context.setProperty(QuotaFeature.DECISION, decision);
            return decision;
        } catch (RuntimeException e) {
            log.error("quota check failed for {} ({}); answering 503", pending.path(), pending.limits(), e);
            throw new WebApplicationException(ProblemResponses.checkFailed(pending.path()));
        }
    }

    /**
     * The amount the body carries. A client's mistake is an {@link InvalidAmount} whose message, the
     * 400's reason, never echoes what the client sent (a currency may be megabytes long).
     */
    private static Amount amountOf(Object entity, String limits) {
        if (entity == null) {
            throw new InvalidAmount("the body is missing");
        }
        if (!(entity instanceof QuotaAmount carrier)) {
            throw new IllegalStateException(entity.getClass().getName() + " does not implement QuotaAmount,"
                    + " which @AmountLimit(\"" + limits + "\") needs");
        }
        String qualifier;
        long value;
        try {
            qualifier = carrier.quotaQualifier();
            value = carrier.quotaAmount();
        } catch (IllegalArgumentException | ArithmeticException e) {
            // a value the entity type cannot express in minor units, such as "1e400" or "12.345"
            log.debug("the amount of a request to {} cannot be read: {}", limits, e.toString());
            throw new InvalidAmount("the amount cannot be read as a whole number of minor units");
        }
        if (!Amount.isValidQualifier(qualifier)) {
            throw new InvalidAmount(qualifier == null ? "its currency (or other qualifier) is missing"
                    : "its currency (or other qualifier) must be 1 to 32 letters, digits, _, . or -");
        }
        if (value < 1) {
            throw new InvalidAmount("it must be at least 1");
        }
        return new Amount(limits, qualifier, value);
    }

    /** An amount the limits cannot take, answered 400 with this reason. */
    private static final class InvalidAmount extends RuntimeException {
        private static final long serialVersionUID = 1L;

        InvalidAmount(String reason) {
            super(reason, null, false, false);
        }
    }
}
