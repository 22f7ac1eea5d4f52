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

    /** Wraps the store's own failure: one call failed; whether the store is down is not known. */
    public QuotaStoreException(String message, Throwable cause) {
        super(message, cause);
        this.outage = false;
    }

    /** A failure without an underlying exception: one call failed; whether the store is down is not known. */
    public QuotaStoreException(String message) {
        super(message);
        this.outage = false;
    }

    private QuotaStoreException(String message, boolean outage) {
        super(message);
        this.outage = outage;
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
