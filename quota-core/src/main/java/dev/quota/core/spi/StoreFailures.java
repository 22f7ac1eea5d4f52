package dev.quota.core.spi;

import dev.quota.core.QuotaStoreException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * How a store's failure becomes the one exception type the failure policy reads: every store, the
 * breaker and the decision wrap through here, so the same failure gives the same exception
 * whichever store raised it.
 *
 * <ul>
 *   <li>A {@link QuotaStoreException} passes as it is (its kind, in doubt or outage, kept), also
 *       when a future carries it.</li>
 *   <li>An {@link IllegalArgumentException} passes as it is: a bad call (an empty consume, a key
 *       twice), the caller's bug, not the store's failure.</li>
 *   <li>Anything else, unwrapped from {@link ExecutionException} / {@link CompletionException},
 *       becomes a {@link QuotaStoreException} naming what failed and why: one call failed, whether
 *       the store is down is not known.</li>
 * </ul>
 */
public final class StoreFailures {

    private StoreFailures() {
    }

    /**
     * The store failure {@code cause} is, for a call described by {@code failed} (e.g.
     * {@code "cache 'quota' failed on q:alice"}): message {@code failed + ": " + cause}.
     */
    public static QuotaStoreException wrap(String failed, Throwable cause) {
        Throwable unwrapped = cause;
        while ((unwrapped instanceof ExecutionException || unwrapped instanceof CompletionException)
                && unwrapped.getCause() != null) {
            unwrapped = unwrapped.getCause();
        }
        if (unwrapped instanceof QuotaStoreException storeFailure) {
            return storeFailure;
        }
        return new QuotaStoreException(failed + ": " + unwrapped, unwrapped);
    }

    /**
     * Runs one call of a store, its failures wrapped by {@link #wrap}, except an
     * {@link IllegalArgumentException}, which passes as it is.
     *
     * @throws QuotaStoreException      if the call failed
     * @throws IllegalArgumentException if the call was a bad one
     */
    public static <T> T call(String failed, Supplier<T> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            throw thrown(failed, e);
        }
    }

    /**
     * What {@link #call} throws when the call threw {@code e}: {@code e} itself when it is an
     * {@link IllegalArgumentException}, else {@link #wrap}. For a call on a hot path made without a
     * supplier: {@code catch (RuntimeException e) { throw StoreFailures.thrown(failed, e); }}.
     */
    public static RuntimeException thrown(String failed, RuntimeException e) {
        return e instanceof IllegalArgumentException ? e : wrap(failed, e);
    }
}
