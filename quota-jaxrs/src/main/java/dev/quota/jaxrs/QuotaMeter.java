package dev.quota.jaxrs;

import dev.quota.core.RunningCost;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

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
 *             if (!meter.add(1)) {                    // 37 rows written: charged 37, not 10
 *                 break;                              // the customer has nothing left for another row
 *             }
 *         }
 *     };
 * }
 * }</pre>
 *
 * <p><b>Charged while it streams.</b> The meter of an admitted request charges as it counts
 * ({@link RunningCost}): whenever the count passes what the request has paid, it draws the next
 * batch from the customer's plan in one store call (a twentieth of the plan's smallest capacity,
 * 1 to {@code streams.maxBatch}), and {@link #add} answers false once the plan cannot give the next
 * token (after {@code streams.debtCap} tokens on credit, default 0): the resource writes nothing
 * more, may write how its format says it ended (an event, a line), and returns. With
 * {@code write; add(1)} per row, a customer with {@code r} tokens left is sent exactly
 * {@code r + debtCap} rows, however long the statement. A resource that counts more after
 * {@code add} answered false is cut off: its next write fails with an {@link java.io.IOException},
 * and the client sees the body break off (no clean end); it is charged what it was handed.
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
    /** What charges the count while it grows; set once, on the request's thread, before the meter is handed out. */
    private volatile @Nullable RunningCost running;
    /** Whether {@link #add} answered false. */
    private volatile boolean stopped;
    /** Whether an {@link #add} counted more after a false: the response is cut off. */
    private volatile boolean cut;

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
     * megabyte once it has been written. Answers whether the customer can pay for more: false once
     * the plan has nothing left for the next token (the count is kept and charged all the same),
     * and false from then on. Counting more after a false cuts the response off (see above).
     *
     * @return true while the stream may go on; always true for a request that charged no plan
     * @throws IllegalArgumentException if {@code cost} is negative
     */
    public boolean add(long cost) {
        long add = requireCost(cost);
        long total = actual.updateAndGet(now -> (now == UNMEASURED ? 0 : now) + add);
        RunningCost running = this.running;
        if (running == null) {
            return true;
        }
        if (stopped) {
            cut |= add > 0;
            return false;
        }
        if (running.cover(total + 1)) {
            return true;
        }
        stopped = true;
        return false;
    }

    /** Charges what this meter counts while it counts, from now on. */
    void charging(RunningCost running) {
        this.running = running;
    }

    /** The running cost charged while counting, or null when nothing is. */
    @Nullable RunningCost running() {
        return running;
    }

    /** Whether the resource counted more after {@link #add} answered false: its writes must fail. */
    boolean cut() {
        return cut;
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
