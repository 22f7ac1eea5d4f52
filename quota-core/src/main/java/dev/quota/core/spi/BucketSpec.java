package dev.quota.core.spi;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import java.time.Duration;
import java.util.List;

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
 * @param limits  at least one limit; tokens are taken from all of them at once or from none. A lease
 *                set has exactly one: its capacity is the number of slots, its refill an interval of
 *                that many tokens per lease timeout
 * @param version the config version; a stored bucket with a lower version takes these limits on
 *                its next use and keeps its usage (a lease set keeps the leases it holds)
 * @param leases  whether this bucket is a lease set
 */
public record BucketSpec(List<Limit> limits, long version, boolean leases) {

    /** The most slots a lease set may have: its state holds three words per slot. */
    public static final int MAX_LEASES = 100;

    /**
     * @throws IllegalArgumentException if limits are empty or one is calendar-aligned, or a lease set
     *                                  is not one interval limit of at most {@link #MAX_LEASES}
     */
    public BucketSpec {
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
    }

    /** A bucket of rate limits. */
    public BucketSpec(List<Limit> limits, long version) {
        this(limits, version, false);
    }

    /**
     * A lease set: at most {@code capacity} leases held at once, each given back by its holder or
     * free again {@code timeout} after it was taken.
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

    /** The lease timeout of a lease set. */
    public Duration leaseTimeout() {
        if (!leases) {
            throw new IllegalStateException("not a lease set: " + limits);
        }
        return ((Refill.Interval) limits.get(0).refill()).period();
    }
}
