package dev.quota.core;

import dev.quota.core.LimitStatus.Role;
import dev.quota.core.internal.CalendarWindow;
import dev.quota.core.internal.lease.LeaseCandidate;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.RefillTimes;
import dev.quota.core.spi.Take;
import java.time.Duration;
import java.time.Instant;
import java.util.AbstractList;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;
import org.jspecify.annotations.Nullable;

/**
 * One draw of a decision: a bucket it takes tokens from, as {@link BucketLayout} lays it out:
 * where it is stored, what it enforces, how many tokens the request takes from it, its role, and
 * how to report its limits. ("Slot" is left to Redis Cluster's hash slots.)
 *
 * <p>A draw is also the list of its one take, immutable: a one-bucket decision's takes, as its
 * store call is given them and its receipt keeps them, with no list of their own. Two draws are
 * equal as lists are: when their takes are.
 */
final class Draw extends AbstractList<Take> implements RandomAccess, LeaseCandidate {

    /**
     * What the store takes from the bucket, as {@link DecisionCharge} charges it: its key, its spec
     * (the limits as the store sees them, a calendar window resolved to an interval) and the tokens
     * this request takes; made with the draw, so that a decision's one store call needs no object
     * of its own per bucket.
     */
    private final Take take;
    /**
     * What the draw is besides its take: the same for every decision on these limits in this role
     * and mode, so kept by {@link BucketLayout} and not made per decision.
     */
    private final Shape shape;

    Draw(Take take, Shape shape) {
        this.take = Objects.requireNonNull(take, "take");
        this.shape = Objects.requireNonNull(shape, "shape");
    }

    /**
     * What a draw is besides its take.
     *
     * @param declared  the limits as configured and scaled for the customer (calendar ones still
     *                  calendar), in spec order
     * @param policies  the policy name of each limit, in spec order
     * @param window    the calendar window when this bucket is one, else null
     * @param role      what the bucket counts: a plan bucket is charged even when a later bucket
     *                  refuses and never refunded; rule, shared and amount buckets are refunded
     * @param onFailure what to do when the store cannot answer
     * @param mode      whether this bucket's lack of tokens rejects the request or only
     *                  shadow-rejects it
     * @param noShare   on the in-JVM fallback: a limit of this bucket leaves this instance no token
     *                  (see {@link LocalShare}), so a decision over it is refused with 503
     * @param heads     each limit's policy name, limit and role, as its statuses name it, in spec order
     */
    record Shape(List<Limit> declared, List<String> policies, @Nullable CalendarWindow window, Role role,
                 FailurePolicy onFailure, Mode mode, boolean noShare, List<LimitStatus.Head> heads) {

        /** The shape of these limits, their statuses' heads made of them. */
        Shape(List<Limit> declared, List<String> policies, @Nullable CalendarWindow window, Role role,
              FailurePolicy onFailure, Mode mode, boolean noShare) {
            this(declared, policies, window, role, onFailure, mode, noShare, heads(declared, policies, role));
        }

        private static List<LimitStatus.Head> heads(List<Limit> declared, List<String> policies, Role role) {
            LimitStatus.Head[] heads = new LimitStatus.Head[declared.size()];
            for (int i = 0; i < heads.length; i++) {
                heads[i] = new LimitStatus.Head(policies.get(i), declared.get(i), role);
            }
            return List.of(heads);
        }

        /** Whether this shape is the one of {@code window} (by identity), {@code role}, {@code onFailure} and {@code mode}. */
        @SuppressWarnings("ReferenceEquality") // the window by identity: one object per current window
        boolean is(@Nullable CalendarWindow window, Role role, FailurePolicy onFailure, Mode mode) {
            return this.window == window && this.role == role && this.onFailure == onFailure && this.mode == mode;
        }
    }

    /**
     * The draw of {@code tokens} from the bucket {@code key} of {@code spec}, of a shape (kept, or
     * made for it), its take charged as {@link DecisionCharge#take} says for its role and mode.
     */
    Draw(BucketKey key, BucketSpec spec, long tokens, Shape shape) {
        this(DecisionCharge.take(key, spec, tokens, shape.role(), shape.mode()), shape);
    }

    /** The limits as configured and scaled for the customer, in spec order. */
    List<Limit> declared() {
        return shape.declared();
    }

    /** The policy name of each limit, in spec order. */
    List<String> policies() {
        return shape.policies();
    }

    /** The calendar window when this bucket is one, else null. */
    @Nullable CalendarWindow window() {
        return shape.window();
    }

    /** What the bucket counts. */
    Role role() {
        return shape.role();
    }

    /** What to do when the store cannot answer. */
    FailurePolicy onFailure() {
        return shape.onFailure();
    }

    /** Whether this bucket's lack of tokens rejects the request or only shadow-rejects it. */
    Mode mode() {
        return shape.mode();
    }

    /** On the in-JVM fallback: whether a limit of this bucket leaves this instance no token. */
    boolean noShare() {
        return shape.noShare();
    }

    /** What the store takes from the bucket. */
    Take take() {
        return take;
    }

    /** What the draw is besides its take. */
    Shape shape() {
        return shape;
    }

    /** The take, as the only element of this list. */
    @Override
    public Take get(int index) {
        Objects.checkIndex(index, 1);
        return take;
    }

    /** One: a draw's list is its take. */
    @Override
    public int size() {
        return 1;
    }

    /** The storage key. */
    BucketKey key() {
        return take.key();
    }

    /** The limits as the store sees them (a calendar window resolved to an interval). */
    BucketSpec spec() {
        return take.spec();
    }

    /** The tokens this request takes. */
    long tokens() {
        return take.tokens();
    }

    /**
     * Its first limit's policy name when {@code leasing} lets this bucket be leased: an enforced
     * plan, rule or shared rate limit (no lease set, calendar window, amount, failed-key guard), on
     * the shared store, of a plan or rule the config does not mark {@code leasing: off}; else null.
     */
    @Override
    public @Nullable String leasedPolicy(Leasing leasing) {
        Role role = shape.role();
        if (role != Role.PLAN && role != Role.RULE && role != Role.SHARED) {
            return null;
        }
        if (shape.mode() != Mode.ENFORCE || shape.window() != null || shape.noShare() || spec().leases()) {
            return null;
        }
        String policy = shape.policies().get(0);
        return leasing.leases(role == Role.PLAN, policy, shape.declared().get(0).name()) ? policy : null;
    }

    /** Whether a refund gives this bucket's tokens back. */
    boolean refundable() {
        Role role = shape.role();
        return role == Role.RULE || role == Role.SHARED || role == Role.AMOUNT;
    }

    /** Whether the request needs more tokens than a limit of this bucket can ever hold. */
    boolean exceedsCapacity() {
        List<Limit> declared = shape.declared();
        for (int i = 0; i < declared.size(); i++) { // indexed: no iterator per decision
            if (tokens() > declared.get(i).capacity()) {
                return true;
            }
        }
        return false;
    }

    /** The time until this bucket could give the request its tokens, after {@code result} refused them. */
    Duration retryAfter(ConsumeResult result, Instant now) {
        CalendarWindow window = shape.window();
        return window != null ? window.remaining(now) : Duration.ofNanos(Math.max(1, result.nanosToWait()));
    }

    /** Appends the status of each limit of this bucket after {@code result}. */
    void statuses(ConsumeResult result, Instant now, List<LimitStatus> out) {
        for (int i = 0; i < shape.declared().size(); i++) {
            out.add(status(result, now, i));
        }
    }

    /** The status of the {@code i}th limit of this bucket after {@code result}. */
    LimitStatus status(ConsumeResult result, Instant now, int i) {
        Limit limit = shape.declared().get(i);
        LimitStatus.Head head = shape.heads().get(i);
        CalendarWindow window = shape.window();
        // below zero is a debt a settle left: reported as 0 remaining, its refill counted in the times
        long remaining = result.remaining()[i];
        boolean short_ = !result.tokensTaken() && remaining < tokens();
        if (window != null) {
            // its time to full in nanoseconds too: the Duration made when read
            long left = window.nanosLeft(now);
            return LimitStatus.ofNanos(head, Math.max(0, remaining), remaining < limit.capacity() ? left : 0, short_ ? Duration.ofNanos(left) : Duration.ZERO);
        }
        // in nanoseconds, the time to full kept so (its Duration made when asked for); "never"
        // (more than the capacity missing) loses to any time Bucket4j reports, as it did as a Duration
        long toFull = result.nanosToFull();
        // a debt needs more than a whole bucket's refill: exactly that long, not "never"
        long refill = remaining < 0 ? RefillTimes.nanosFor(limit, limit.capacity() - remaining)
                : refillNanos(limit, limit.capacity() - remaining);
        Duration retry = Duration.ZERO;
        if (short_) {
            long wait = Math.min(refillNanos(limit, tokens() - remaining), result.nanosToWait());
            retry = Duration.ofNanos(wait == 0 ? Math.max(1, result.nanosToWait()) : wait);
        }
        return LimitStatus.ofNanos(head, Math.max(0, remaining), Math.min(refill, toFull), retry);
    }

    /**
     * An upper bound of the time until {@code missing} tokens are back: exact for greedy refill,
     * whole periods for interval refill; effectively forever past a limit's capacity.
     */
    static Duration refillTime(Limit limit, long missing) {
        if (missing > limit.capacity()) {
            return Duration.ofSeconds(Long.MAX_VALUE / 2);
        }
        return Duration.ofNanos(refillNanos(limit, missing));
    }

    /** {@link #refillTime} in nanoseconds; {@link Long#MAX_VALUE} past the limit's capacity. */
    private static long refillNanos(Limit limit, long missing) {
        if (missing <= 0) {
            return 0;
        }
        return missing > limit.capacity() ? Long.MAX_VALUE : RefillTimes.nanosFor(limit, missing);
    }

    /**
     * The time until a bucket of the one {@code limit} that holds less than one token has one, from
     * its exact time to full ({@link ConsumeResult#nanosToFull()}, which a peek reports to the
     * nanosecond): the tokens that complete the bucket after the first ones arrive take a known
     * time, the rest is the wait. Greedy refill brings one token at a time (capacity 10, 10 per
     * minute, 57 s to full: the first token in 3 s); interval refill brings its tokens together at
     * the next period's start (10 every minute, 57 s to full: all in 57 s).
     */
    static Duration untilOneToken(Limit limit, long nanosToFull) {
        long arriving = limit.refill() instanceof Refill.Interval interval ? interval.tokens() : 1;
        long afterThem = RefillTimes.nanosFor(limit, limit.capacity() - arriving);
        return Duration.ofNanos(Math.max(1, nanosToFull - afterThem));
    }

}
