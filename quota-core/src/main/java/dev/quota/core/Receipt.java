package dev.quota.core;

import dev.quota.core.spi.QuotaStore;
import dev.quota.core.spi.Adjustment;
import dev.quota.core.spi.Take;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a decision took: from which store, which buckets (keys and specs as they were when charged)
 * and how many tokens each, how many its plan was charged, and the in-flight leases it holds
 * ({@link QuotaService#release(QuotaDecision)} gives them back, once). {@link QuotaService#refund(QuotaDecision)}
 * gives back exactly that, to exactly those buckets, once; {@link QuotaService#settle} changes the
 * plan's charge to the actual cost, in exactly those plan buckets, once. A hot reload, a calendar
 * day that ended in between, or a decision the in-JVM fallback made while Redis was down do not
 * move the tokens anywhere else.
 *
 * <p>A receipt is closed once: by a refund or by a settle, whichever comes first; the other is
 * then a no-op that says so ({@link Settlement.Outcome#REFUNDED}). Leases are given back apart.
 *
 * <p>Opaque: it carries no public state. A decision that took nothing has {@link #NONE}.
 */
public final class Receipt {

    /** The receipt of a decision that took nothing. */
    public static final Receipt NONE = new Receipt();

    private static final int OPEN = 0;
    private static final int REFUNDED = 1;
    private static final int SETTLED = 2;
    /** The bits of {@link #state} that say whether a refund or a settle closed the receipt. */
    private static final int CLOSED = 3;
    /** The bit of {@link #state} that says the leases were given back. */
    private static final int RELEASED = 4;
    private static final VarHandle STATE;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(Receipt.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Null only for {@link #NONE}, which has nothing to refund and so is never asked for its store. */
    private final @Nullable QuotaStore store;
    /** The takes a refund gives back: everything taken except the plan's request tokens. */
    private final List<Take> refundable;
    /** The tokens the decision took from its plan, as {@link DecisionCharge#planTokens} counts them. */
    private final long planTokens;
    /**
     * The store the plan takes and the leases came from (a decision in two steps may have used two:
     * both are its first step's); null when there are neither.
     */
    private final @Nullable QuotaStore planStore;
    /** The plan buckets an admitted decision charged its full cost, each with that cost: what a settle changes. */
    private final List<Take> settleable;
    /**
     * {@link #OPEN} until a refund or a settle closes it ({@link #CLOSED} bits), and the
     * {@link #RELEASED} bit once the leases are given back; changed through {@link #STATE}: no
     * atomic object per decision, and one field for both, so a receipt is one object of a few
     * fields (what one decision allocates is quota-bench's scenario 6, {@code --scenarios alloc}).
     */
    private volatile int state = OPEN;
    /** The leases held, each as its release ({@link QuotaStore#releaseLease}). */
    private final List<Adjustment> leases;
    /** Who the plan charge is for, told once the decision is made: a settle counts the change for them. */
    private volatile @Nullable Customer payer;

    /**
     * @param refundable the takes a refund gives back, an immutable list, kept as it is
     * @param settleable the plan takes an admitted decision charged in full, each with its tokens
     * @param leases     the leases it holds, each as its release
     */
    Receipt(QuotaStore store, List<Take> refundable, long planTokens, List<Take> settleable, List<Adjustment> leases) {
        this(store, refundable, planTokens, settleable.isEmpty() && leases.isEmpty() ? null : store, settleable,
                leases);
    }

    private Receipt(QuotaStore store, List<Take> refundable, long planTokens, @Nullable QuotaStore planStore,
                    List<Take> settleable, List<Adjustment> leases) {
        this.store = Objects.requireNonNull(store, "store");
        // kept as given: the decision's own immutable lists (a one-bucket decision's takes are its
        // draw, which a copy would make a list of again), or another receipt's
        this.refundable = refundable;
        this.planTokens = planTokens;
        this.planStore = planStore;
        this.settleable = settleable;
        this.leases = leases;
    }

    /**
     * The receipt of a decision taken in two steps: what {@code later} may refund, the plan tokens
     * of both, what {@code earlier} may settle, and the leases the earlier step took (the later one
     * takes none), whatever the later step decided.
     */
    static Receipt both(Receipt earlier, Receipt later) {
        if (earlier.planTokens == 0 && earlier.leases.isEmpty()) {
            return later;
        }
        QuotaStore from = later.refundable.isEmpty() ? earlier.store() : later.store();
        return new Receipt(from, later.refundable, earlier.planTokens + later.planTokens, earlier.planStore,
                earlier.settleable, earlier.leases);
    }

    private Receipt() {
        this.store = null;
        this.refundable = List.of();
        this.planTokens = 0;
        this.planStore = null;
        this.settleable = List.of();
        this.leases = List.of();
    }

    /** Records who the plan charge is for; a receipt that charges no settleable plan ignores it. */
    void paidBy(Customer customer) {
        if (!settleable.isEmpty()) {
            payer = customer;
        }
    }

    /** Who the plan charge is for, when told and settleable. */
    @Nullable Customer payer() {
        return payer;
    }

    /** Whether the decision holds in-flight leases not given back yet. */
    public boolean holdsLeases() {
        return !leases.isEmpty() && (state & RELEASED) == 0;
    }

    /** The store the leases are held in; only a receipt that holds some has one. */
    QuotaStore leaseStore() {
        return Objects.requireNonNull(leases.isEmpty() ? null : planStore, "a receipt without leases has no lease store");
    }

    List<Adjustment> leases() {
        return leases;
    }

    /** True once: the caller that wins gives the leases back. */
    boolean release() {
        if (leases.isEmpty()) {
            return false;
        }
        while (true) {
            int now = state;
            if ((now & RELEASED) != 0) {
                return false;
            }
            if (STATE.compareAndSet(this, now, now | RELEASED)) {
                return true;
            }
        }
    }

    /** Whether a refund would give anything back. */
    public boolean refundable() {
        return !refundable.isEmpty() && (state & CLOSED) == OPEN;
    }

    /** Whether a settle would change the plan's charge: the decision charged its plan and is neither refunded nor settled. */
    public boolean settleable() {
        return !settleable.isEmpty() && (state & CLOSED) == OPEN;
    }

    /** The store the takes came from; only a receipt of a decision that took something has one. */
    QuotaStore store() {
        return Objects.requireNonNull(store, "a receipt that took nothing has no store");
    }

    /** The store the plan takes came from; only a receipt with {@link #settleableTakes} has one. */
    QuotaStore planStore() {
        return Objects.requireNonNull(settleable.isEmpty() ? null : planStore,
                "a receipt that charged no plan has no plan store");
    }

    List<Take> refundableTakes() {
        return refundable;
    }

    /** The plan buckets a settle changes, each with the tokens the decision took from it. */
    List<Take> settleableTakes() {
        return settleable;
    }

    /** The tokens the decision took from its plan: its request tokens, admitted or refused. */
    long planTokens() {
        return planTokens;
    }

    /** True once: the caller that wins may give the tokens back; a settle after it does nothing. */
    boolean spend() {
        return this != NONE && close(REFUNDED) && !refundable.isEmpty();
    }

    /**
     * Closes the receipt for a settle: {@code null} when this caller won and may apply it, else
     * why it may not (settled or refunded before, or nothing to settle).
     */
    Settlement.@Nullable Outcome settle() {
        if (settleable.isEmpty()) {
            return Settlement.Outcome.NOTHING_TO_SETTLE;
        }
        if (close(SETTLED)) {
            return null;
        }
        return (state & CLOSED) == SETTLED ? Settlement.Outcome.ALREADY_SETTLED : Settlement.Outcome.REFUNDED;
    }

    /** True once: closes an open receipt as {@code how} ({@link #REFUNDED} or {@link #SETTLED}), its leases' bit kept. */
    private boolean close(int how) {
        while (true) {
            int now = state;
            if ((now & CLOSED) != OPEN) {
                return false;
            }
            if (STATE.compareAndSet(this, now, now | how)) {
                return true;
            }
        }
    }

    @Override
    public String toString() {
        int now = state;
        int closed = now & CLOSED;
        return "Receipt[" + refundable.size() + " refundable buckets"
                + (closed == REFUNDED ? ", refunded" : closed == SETTLED ? ", settled" : "")
                + (leases.isEmpty() ? "" : ", " + leases.size() + " leases" + ((now & RELEASED) != 0 ? " given back" : "")) + "]";
    }
}
