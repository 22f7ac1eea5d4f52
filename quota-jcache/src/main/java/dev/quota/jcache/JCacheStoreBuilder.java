package dev.quota.jcache;

import dev.quota.core.QuotaStoreException;
import dev.quota.core.internal.Bandwidths;
import dev.quota.core.spi.RetryBudget;
import dev.quota.core.spi.StoreFailures;
import io.github.bucket4j.TimeMeter;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;

/**
 * Settings for a {@link JCacheStore}. Defaults: {@link JCacheStore.Update#COMPARE_AND_SWAP}, the system
 * clock, a retry budget of 1,000 lost compare-and-swap races, an expiry margin of 60 s, per-entry expiry where the provider
 * supports it, this JVM's concurrent decisions of an entry merged ({@link #mergeDecisions}), and on
 * Hazelcast in-flight leases held by this member ({@link #memberLeases}).
 */
public final class JCacheStoreBuilder {

    private final Cache<String, byte[]> cache;
    private JCacheStore.Update update = JCacheStore.Update.COMPARE_AND_SWAP;
    private Clock clock = Clock.systemUTC();
    private int retryBudget = DEFAULT_RETRY_BUDGET;
    private Duration expiryMargin = Duration.ofSeconds(60);
    private boolean perEntryExpiry = true;
    private boolean memberLeases = true;
    private boolean mergeDecisions = true;

    /** The default {@link #retryBudget}: 1,000 lost races. */
    public static final int DEFAULT_RETRY_BUDGET = RetryBudget.DEFAULT_LOST_RACES;

    JCacheStoreBuilder(Cache<String, byte[]> cache) {
        this.cache = Objects.requireNonNull(cache, "cache");
    }

    /**
     * How a bucket is updated; default {@link JCacheStore.Update#COMPARE_AND_SWAP}. See {@link JCacheStore}.
     *
     * @throws NullPointerException if {@code update} is null
     */
    public JCacheStoreBuilder update(JCacheStore.Update update) {
        this.update = Objects.requireNonNull(update, "update");
        return this;
    }

    /** The clock buckets refill by; default {@link Clock#systemUTC()}. */
    public JCacheStoreBuilder clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /**
     * How many compare-and-swap races one change may lose (its bucket written by other members
     * between its read and its write) before it fails; default 1,000. Used in
     * {@link JCacheStore.Update#COMPARE_AND_SWAP} only. Counted in lost races, not time: time blocked
     * in the grid (a GC pause, a member-loss stall) never counts, and each lost race means another
     * change was written, so hot contention makes progress instead of failing. A change that fails
     * anyway is refused with 503, never admitted by the failure policy, which answers only an outage
     * the circuit breaker established.
     *
     * @throws IllegalArgumentException if below 1
     */
    public JCacheStoreBuilder retryBudget(int lostRaces) {
        this.retryBudget = RetryBudget.require(lostRaces);
        return this;
    }

    /**
     * How long an entry outlives the time its bucket needs to be full again, where the store sets
     * each entry's expiry; default 60 s. It covers clock differences between members: buckets refill
     * by this JVM's clock, entries expire by the grid's.
     *
     * @throws IllegalArgumentException if negative
     */
    public JCacheStoreBuilder expiryMargin(Duration margin) {
        if (margin.isNegative()) {
            throw new IllegalArgumentException("expiryMargin must be >= 0 but was " + margin);
        }
        this.expiryMargin = margin;
        return this;
    }

    /**
     * Whether each write sets its entry's expiry where the provider supports it; default true.
     * Supported: Hazelcast (Payara's data grid), in {@link JCacheStore.Update#COMPARE_AND_SWAP}. With
     * false, or elsewhere, the cache's own expiry policy applies (see {@link JCacheStore}).
     */
    public JCacheStoreBuilder perEntryExpiry(boolean perEntry) {
        this.perEntryExpiry = perEntry;
        return this;
    }

    /**
     * Whether, on Hazelcast, the in-flight leases this store takes are held by this member; default
     * true. Then a lease taken for a decision that names no holder
     * ({@code QuotaServiceBuilder.leaseHolder} left at its default) records this member's tag (of
     * its member UUID), and every take from a lease set frees, in the same entry change, the slots
     * of members the cluster removed while this member watched: a killed member's leases come back
     * at each customer's next request once the cluster has removed it (Hazelcast's failure
     * detection), not at their lease timeout. A live member's are never freed: only the cluster's
     * own member list says who left, and the members that removed a member refuse its operations.
     * With false, or on another provider, such leases are held until given back or their deadline.
     * A client of the grid (not a member) takes leases without a tag and frees those of removed
     * members.
     */
    public JCacheStoreBuilder memberLeases(boolean byMember) {
        this.memberLeases = byMember;
        return this;
    }

    /**
     * Whether, in {@link JCacheStore.Update#COMPARE_AND_SWAP}, this JVM's concurrent decisions of one
     * entry (one customer's buckets, or one shared bucket) go to the grid in one change; default
     * true. While a change of the entry is on its way, the decisions that arrive for it wait and go
     * together in the next, each decided in turn and all or nothing on its own, so a JVM has one
     * change of an entry in flight and races only other JVMs for it. With false each decision is a
     * change of its own and races this JVM's other request threads too: the plain path, for
     * comparison (quota-bench's {@code grid} scenario shows both).
     */
    public JCacheStoreBuilder mergeDecisions(boolean merge) {
        this.mergeDecisions = merge;
        return this;
    }

    /**
     * The store. In {@link JCacheStore.Update#COMPARE_AND_SWAP}, first checks with a probe entry (written,
     * replaced and removed) that the cache's {@code replace(key, old, new)} replaces an unchanged entry
     * given the value read from it, and refuses a stale one.
     *
     * @throws IllegalStateException if the cache is closed, or in compare-and-swap mode does not pass
     *                               that check (use {@link JCacheStore.Update#ENTRY_PROCESSOR}, or for
     *                               Hazelcast the in-memory format BINARY, its default)
     * @throws QuotaStoreException   if the cache does not answer the check
     */
    public JCacheStore build() {
        if (cache.isClosed()) {
            throw new IllegalStateException("cache '" + cache.getName() + "' is closed");
        }
        TimeMeter time = Bandwidths.timeMeter(clock);
        String provider = provider(cache);
        if (update == JCacheStore.Update.ENTRY_PROCESSOR) {
            CacheLifetime lifetime = CacheLifetime.of(cache, false);
            lifetime.warnIfEternal();
            return store(new ProcessorBuckets(cache, lifetime, time),
                    "jcache '" + cache.getName() + "' (" + provider + "), entry processors, entries "
                            + lifetime.describe());
        }
        EntryWriter writer = EntryWriters.of(cache, perEntryExpiry);
        requireCompareAndSwap(writer, provider);
        CacheLifetime lifetime = CacheLifetime.of(cache, writer.perEntryExpiry());
        if (!writer.perEntryExpiry()) {
            lifetime.warnIfEternal();
        }
        String expiry = writer.perEntryExpiry() ? "each entry expires " + expiryMargin.toSeconds()
                + " s after its bucket is full again" : "entries " + lifetime.describe();
        CasBuckets cas = new CasBuckets(cache, writer, lifetime, time, retryBudget, expiryMargin.toNanos());
        return store(mergeDecisions ? new MergedDecisions(cas) : cas, "jcache '" + cache.getName() + "' ("
                + provider + "), compare-and-swap, " + expiry
                + (mergeDecisions ? ", this JVM's decisions of an entry merged" : ""));
    }

    /** The store over {@code buckets}, its leases held by this member where it can tell one (the last step: it watches the grid). */
    private JCacheStore store(Buckets buckets, String description) {
        LeaseHolders holders = memberLeases ? JCacheStore.leaseHolders(cache) : LeaseHolders.NONE;
        String leases = holders == LeaseHolders.NONE ? "" : ", in-flight leases held by this grid member";
        return new JCacheStore(cache, update, buckets, description + leases, holders);
    }

    /** Writes, replaces and removes a probe entry: a replace must compare what it is given by content. */
    private void requireCompareAndSwap(EntryWriter writer, String provider) {
        String key = "quota:probe:" + UUID.randomUUID();
        long keep = TimeUnit.MINUTES.toNanos(1); // a probe left behind by a failure goes away
        byte[] first = {1, 2, 3};
        boolean created;
        boolean replaced;
        boolean staleRefused;
        try {
            created = writer.create(key, first, keep, keep);
            byte[] read = cache.get(key);
            replaced = read != null && Arrays.equals(read, first) && writer.replace(key, read, new byte[] {4, 5, 6}, keep, keep);
            staleRefused = replaced && !writer.replace(key, read, new byte[] {7, 8, 9}, keep, keep);
            cache.remove(key);
        } catch (RuntimeException e) {
            throw StoreFailures.wrap("cache '" + cache.getName() + "' (" + provider + ") does not answer", e);
        }
        if (!created || !replaced || !staleRefused) {
            throw new IllegalStateException("cache '" + cache.getName() + "' (" + provider + ") cannot hold buckets"
                    + " by compare-and-swap: " + (!created ? "putIfAbsent did not create a new entry"
                    : !replaced ? "replace(key, value read, new value) did not replace an unchanged entry,"
                            + " so it does not compare byte arrays by content"
                    : "replace(key, stale value, new value) replaced an entry that had changed")
                    + ". Use Update.ENTRY_PROCESSOR, or a cache that compares values in serialized form"
                    + " (Hazelcast: in-memory format BINARY, the default)");
        }
    }

    private static String provider(Cache<String, byte[]> cache) {
        try {
            return cache.getCacheManager().getCachingProvider().getClass().getName();
        } catch (RuntimeException e) {
            return cache.getClass().getName();
        }
    }
}
