package dev.quota.jaxrs;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The actual cost of a request whose cost is known only once it has run, in plan tokens: the rule's
 * cost was charged as an estimate when the request came in, and once the response has been
 * written the difference is taken or given back ({@link dev.quota.core.QuotaService#settle}).
 *
 * <pre>{@code
 * @GET @Path("statement") @Quota("statement")        // rule statement: cost 10, the estimate
 * public StreamingOutput statement(@Context ContainerRequestContext request) {
 *     QuotaMeter meter = QuotaFeature.meter(request);
 *     return out -> {
 *         for (Transaction row : rows) {
 *             write(out, row);
 *             meter.add(1);                           // 37 rows written: charged 37, not 10
 *         }
 *     };
 * }
 * }</pre>
 *
 * <p>A response that fails (status 400 or above) is refunded instead, as any refused request
 * ({@link QuotaResponseFilter}). A client that goes away mid-stream is charged what was measured
 * until then: the rows it was sent. Without a measurement the response's {@value #HEADER} header is
 * the actual cost, for a resource that cannot reach the meter; without either, the estimate stands.
 * Thread-safe: the resource method and its streaming output may measure from different threads.
 */
public final class QuotaMeter {

    /** The response header naming the actual cost of a request that did not use the meter: {@code Quota-Cost}. */
    public static final String HEADER = "Quota-Cost";

    private static final long UNMEASURED = -1;

    /** The actual cost so far, {@link #UNMEASURED} until the first call. */
    private final AtomicLong actual = new AtomicLong(UNMEASURED);

    QuotaMeter() {
    }

    /**
     * Sets the actual cost, replacing anything measured before.
     *
     * @throws IllegalArgumentException if {@code cost} is negative
     */
    public void actual(long cost) {
        actual.set(requireCost(cost));
    }

    /**
     * Adds {@code cost} to the actual cost (counted from 0 on the first call): a row, a token, a
     * megabyte as it is produced.
     *
     * @throws IllegalArgumentException if {@code cost} is negative
     */
    public void add(long cost) {
        long add = requireCost(cost);
        actual.updateAndGet(now -> (now == UNMEASURED ? 0 : now) + add);
    }

    /** Whether the resource measured anything. */
    boolean measured() {
        return actual.get() != UNMEASURED;
    }

    /** The actual cost measured, 0 when nothing was. */
    long cost() {
        return Math.max(0, actual.get());
    }

    private static long requireCost(long cost) {
        if (cost < 0) {
            throw new IllegalArgumentException("cost must be >= 0 but was " + cost);
        }
        return cost;
    }

    @Override
    public String toString() {
        return measured() ? "QuotaMeter[" + cost() + "]" : "QuotaMeter[unmeasured]";
    }
}
