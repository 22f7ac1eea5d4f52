package dev.quota.core;

import dev.quota.core.spi.QuotaStore;
import dev.quota.core.spi.Take;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * What a decision took: from which store, which buckets (keys and specs as they were when charged)
 * and how many tokens each, how many its plan was charged, and the in-flight leases it holds
 * ({@link QuotaService#release(QuotaDecision)} gives them back, once).
 * {@link QuotaService#refund(QuotaDecision)} gives back the tokens, to exactly those buckets,
 * once; a hot reload, a calendar day that ended in between, or a decision the in-JVM fallback made
 * while Redis was down do not move the tokens anywhere else.
 *
 * <p>Opaque: it carries no public state. A decision that took nothing has {@link #NONE}.
 */
public final class Receipt {

    /** The receipt of a decision that took nothing. */
    public static final Receipt NONE = new Receipt();

    /** Null only for {@link #NONE}, which has nothing to refund and so is never asked for its store. */
    private final @Nullable QuotaStore store;
    /** The takes a refund gives back: everything taken except the plan's request tokens. */
    private final List<Take> refundable;
    /** The tokens the decision took from its plan, as {@link DecisionCharge#planTokens} counts them. */
    private final long planTokens;
    private final AtomicBoolean spent = new AtomicBoolean();
    /** The store the leases are held in; null when there are none. */
    private final @Nullable QuotaStore leaseStore;
    /** The leases held: each take's tokens are its lease's deadline, as {@link QuotaStore#addTokens} takes it. */
    private final List<Take> leases;
    private final AtomicBoolean released = new AtomicBoolean();

    Receipt(QuotaStore store, List<Take> refundable, long planTokens) {
        this(store, refundable, planTokens, List.of());
    }

    Receipt(QuotaStore store, List<Take> refundable, long planTokens, List<Take> leases) {
        this(store, refundable, planTokens, leases.isEmpty() ? null : store, leases);
    }

    private Receipt(QuotaStore store, List<Take> refundable, long planTokens, @Nullable QuotaStore leaseStore,
                    List<Take> leases) {
        this.store = Objects.requireNonNull(store, "store");
        this.refundable = List.copyOf(refundable);
        this.planTokens = planTokens;
        this.leaseStore = leaseStore;
        this.leases = List.copyOf(leases);
    }

    /**
     * The receipt of a decision taken in two steps: what {@code later} may refund, the plan tokens
     * of both, and the leases the earlier step took (the later one takes none), whatever the later
     * step decided.
     */
    static Receipt both(Receipt earlier, Receipt later) {
        if (earlier.planTokens == 0 && earlier.leases.isEmpty()) {
            return later;
        }
        QuotaStore from = later.refundable.isEmpty() ? earlier.store() : later.store();
        return new Receipt(from, later.refundable, earlier.planTokens + later.planTokens, earlier.leaseStore,
                earlier.leases);
    }

    private Receipt() {
        this.store = null;
        this.refundable = List.of();
        this.planTokens = 0;
        this.leaseStore = null;
        this.leases = List.of();
    }

    /** Whether the decision holds in-flight leases not given back yet. */
    public boolean holdsLeases() {
        return !leases.isEmpty() && !released.get();
    }

    /** The store the leases are held in; only a receipt that holds some has one. */
    QuotaStore leaseStore() {
        return Objects.requireNonNull(leaseStore, "a receipt without leases has no lease store");
    }

    List<Take> leases() {
        return leases;
    }

    /** True once: the caller that wins gives the leases back. */
    boolean release() {
        return !leases.isEmpty() && released.compareAndSet(false, true);
    }

    /** Whether a refund would give anything back. */
    public boolean refundable() {
        return !refundable.isEmpty() && !spent.get();
    }

    /** The store the takes came from; only a receipt of a decision that took something has one. */
    QuotaStore store() {
        return Objects.requireNonNull(store, "a receipt that took nothing has no store");
    }

    List<Take> refundableTakes() {
        return refundable;
    }

    /** The tokens the decision took from its plan: its request tokens, admitted or refused. */
    long planTokens() {
        return planTokens;
    }

    /** True once: the caller that wins may give the tokens back. */
    boolean spend() {
        return !refundable.isEmpty() && spent.compareAndSet(false, true);
    }

    @Override
    public String toString() {
        return "Receipt[" + refundable.size() + " refundable buckets" + (spent.get() ? ", refunded" : "")
                + (leases.isEmpty() ? "" : ", " + leases.size() + " leases" + (released.get() ? " given back" : "")) + "]";
    }
}
