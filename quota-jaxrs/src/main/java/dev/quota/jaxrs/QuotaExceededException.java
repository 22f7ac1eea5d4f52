package dev.quota.jaxrs;

import dev.quota.core.QuotaDecision;
import dev.quota.jaxrs.internal.ProblemResponses;
import jakarta.ws.rs.WebApplicationException;

/**
 * A refused decision as an exception, for code that checks quotas itself (an amount taken with
 * {@code QuotaService.consumeAmount}) and for {@link AmountLimit} methods:
 *
 * <pre>{@code
 * QuotaDecision d = service.consumeAmount(customer, new Amount("transfer-amount", "EUR", 125_00));
 * if (!d.allowed()) throw new QuotaExceededException(d);
 * }</pre>
 *
 * <p>Answered 429 with {@code Retry-After} and a problem body naming the violated limit, its
 * {@code remaining} and, for amount limits, {@code resetSeconds}; 422 {@code exceeds-limit} without
 * {@code Retry-After} when the request can never fit; 503 with {@code Retry-After} when the decision
 * is {@code UNAVAILABLE}. The problem body is written by the mapper {@link QuotaFeature} registers;
 * {@link #getResponse()} itself carries only the status and {@code Retry-After}.
 */
public final class QuotaExceededException extends WebApplicationException {

    private static final long serialVersionUID = 1L;

    private final transient QuotaDecision decision;

    /**
     * @param decision a {@code REJECTED}, {@code EXCEEDS_LIMIT} or {@code UNAVAILABLE} decision
     * @throws IllegalArgumentException if the decision admitted the request
     */
    public QuotaExceededException(QuotaDecision decision) {
        super(message(decision), ProblemResponses.withoutBody(decision));
        this.decision = decision;
    }

    /** The decision this exception reports. */
    public QuotaDecision decision() {
        return decision;
    }

    private static String message(QuotaDecision decision) {
        if (decision.allowed()) {
            throw new IllegalArgumentException(
                    "decision must be REJECTED, EXCEEDS_LIMIT or UNAVAILABLE but was " + decision.outcome());
        }
        return decision.violated() == null ? "quota store unavailable"
                : "quota exceeded: " + decision.violated().policy();
    }
}
