package dev.quota.core.spi;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The limits one bucket enforces together, and the config version they come from; or a lease set
 * ({@link #leases()}): at most so many requests of one customer running at once.
 *
 * <p>Every limit here refills greedily or by interval: the core turns a calendar window into an
 * interval bucket whose key names the window, so a store never deals with time zones.
 *
 * <p>A lease set of capacity 5 and lease timeout 60 s has five slots, each free or held until a
 * deadline. A take of one token holds a free slot until now + 60 s (the store's clock) and reports
 * that deadline ({@link ConsumeResult#lease()}); {@link QuotaStore#releaseLease} with that lease
 * frees that slot again. A slot whose deadline passed is free: a holder that died never
 * keeps it for good. A lease set is stored as a bucket state whose limits are the slots (capacity
 * 1, one token back per lease timeout), so every store holds, expires and repairs it as any other
 * bucket; only {@link BucketMath} reads the slots.
 *
 * <p>A value: equal when limits, version and kind are. Made by {@link #of(List, long)} (rate limits)
 * or {@link #leases(String, long, Duration, long)} (a lease set); a part added in a later release
 * gets a default and a factory of its own, so a store that makes one keeps compiling.
 */
public final class BucketSpec {

    /** The most slots a lease set may have: its state holds three words per slot. */
    public static final int MAX_LEASES = 100;

    private final List<Limit> limits;
    private final long version;
    private final boolean leases;

    private BucketSpec(List<Limit> limits, long version, boolean leases) {
        limits = List.copyOf(limits);
        if (limits.isEmpty()) {
            throw new IllegalArgumentException("a bucket needs at least one limit");
        }
        for (Limit limit : limits) {
            if (limit.refill() instanceof Refill.Calendar) {
                throw new IllegalArgumentException("calendar limit " + limit.name() + " must be resolved to an interval first");
            }
        }
        if (leases) {
            Limit limit = limits.get(0);
            if (limits.size() != 1 || !(limit.refill() instanceof Refill.Interval)) {
                throw new IllegalArgumentException("a lease set is one interval limit but was " + limits);
            }
            if (limit.capacity() > MAX_LEASES) {
                throw new IllegalArgumentException("a lease set holds at most " + MAX_LEASES + " leases but was "
                        + limit.capacity());
            }
        }
        this.limits = limits;
        this.version = version;
        this.leases = leases;
    }

    /**
     * A bucket of rate limits: tokens are taken from all of {@code limits} at once or from none.
     *
     * @param limits  at least one limit, each greedy or interval
     * @param version the config version; a stored bucket with a lower version takes these limits on
     *                its next use and keeps its usage
     * @throws NullPointerException     if {@code limits} or one of them is null
     * @throws IllegalArgumentException if {@code limits} are empty or one is calendar-aligned
     */
    public static BucketSpec of(List<Limit> limits, long version) {
        return new BucketSpec(limits, version, false);
    }

    /**
     * A lease set: at most {@code capacity} leases held at once, each given back by its holder or
     * free again {@code timeout} after it was taken. Its one limit is named {@code name} and
     * refills {@code capacity} tokens per {@code timeout}; a stored lease set with a lower version
     * takes it on its next use and keeps the leases it holds.
     *
     * @param name     the limit's name, as its status reports it
     * @param capacity the number of slots, 1 to {@link #MAX_LEASES}
     * @param timeout  how long a lease is held when its holder never gives it back, positive
     * @param version  the config version
     * @throws IllegalArgumentException if capacity or timeout are out of range
     */
    public static BucketSpec leases(String name, long capacity, Duration timeout, long version) {
        return new BucketSpec(List.of(new Limit(name, capacity, Refill.interval(capacity, timeout))), version, true);
    }

    /**
     * The limits, in the order {@link ConsumeResult#remaining()} reports them: at least one. A lease
     * set has exactly one: its capacity is the number of slots, its refill an interval of that many
     * tokens per lease timeout.
     */
    public List<Limit> limits() {
        return limits;
    }

    /**
     * The config version; a stored bucket with a lower version takes these limits on its next use and
     * keeps its usage (a lease set keeps the leases it holds).
     */
    public long version() {
        return version;
    }

    /** Whether this bucket is a lease set ({@link #leases(String, long, Duration, long)}). */
    public boolean leases() {
        return leases;
    }

    /**
     * The lease timeout of a lease set.
     *
     * @throws IllegalStateException if this bucket is not a lease set
     */
    public Duration leaseTimeout() {
        if (!leases) {
            throw new IllegalStateException("not a lease set: " + limits);
        }
        return ((Refill.Interval) limits.get(0).refill()).period();
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof BucketSpec other && version == other.version && leases == other.leases
                && limits.equals(other.limits);
    }

    @Override
    public int hashCode() {
        // by hand: no varargs array where a spec keys a map on the decision path
        return (limits.hashCode() * 31 + Long.hashCode(version)) * 31 + Boolean.hashCode(leases);
    }

    @Override
    public String toString() {
        return "BucketSpec[limits=" + limits + ", version=" + version + ", leases=" + leases + "]";
    }
}
