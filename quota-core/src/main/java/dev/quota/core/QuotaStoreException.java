package dev.quota.core;

/**
 * The store could not answer: Redis down, slow past its timeout, or failing over. Never reaches an
 * HTTP client; the failure policy decides what the client sees.
 */
public final class QuotaStoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Wraps the store's own failure. */
    public QuotaStoreException(String message, Throwable cause) {
        super(message, cause);
    }

    /** A failure without an underlying exception. */
    public QuotaStoreException(String message) {
        super(message);
    }
}
