package dev.quota.core;

/**
 * The store could not answer: Redis down, slow past its timeout, or failing over. Never reaches an
 * HTTP client.
 *
 * <p>Two kinds, because a slow store is not a down store. A call that failed while the store may
 * still be serving everyone else (a timeout, an error, lost races) is answered 503 with
 * {@code Retry-After}, whatever the failure policy, and never from an in-JVM bucket: admitting it
 * locally would count it twice over, once here and once in the store the other instances use. Only
 * an {@link #outage() established outage}, which a
 * {@link dev.quota.core.resilience.CircuitBreakerStore} reports once consecutive failures opened it
 * and its health check failed, is answered by the limits' failure policy ({@code local},
 * {@code open}, {@code closed}).
 */
public final class QuotaStoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final boolean outage;
    private final boolean inDoubt;

    /** Wraps the store's own failure: one call failed; whether the store is down is not known. */
    public QuotaStoreException(String message, Throwable cause) {
        super(message, cause);
        this.outage = false;
        this.inDoubt = false;
    }

    /** A failure without an underlying exception: one call failed; whether the store is down is not known. */
    public QuotaStoreException(String message) {
        super(message);
        this.outage = false;
        this.inDoubt = false;
    }

    private QuotaStoreException(String message, boolean outage) {
        super(message);
        this.outage = outage;
        this.inDoubt = false;
    }

    private QuotaStoreException(String message, Throwable cause, boolean inDoubt) {
        super(message, cause);
        this.outage = false;
        this.inDoubt = inDoubt;
    }

    /**
     * One call failed after its write was sent, and the store may have applied it (a script that
     * timed out may still run): the decision is refused, so nothing is admitted twice, and its
     * tokens may stay taken. Counted by {@code quota.store.in.doubt}.
     */
    public static QuotaStoreException inDoubt(String message, Throwable cause) {
        return new QuotaStoreException(message, cause, true);
    }

    /** Whether the failed call's write may have been applied ({@link #inDoubt(String, Throwable)}). */
    public boolean inDoubt() {
        return inDoubt;
    }

    /**
     * An established outage: the store is known not to answer (a circuit breaker is open and its
     * health check failed), so the limits' failure policy answers.
     */
    public static QuotaStoreException outage(String message) {
        return new QuotaStoreException(message, true);
    }

    /**
     * Whether the store is known to be down ({@link #outage(String)}), rather than one call having
     * failed.
     */
    public boolean outage() {
        return outage;
    }
}
