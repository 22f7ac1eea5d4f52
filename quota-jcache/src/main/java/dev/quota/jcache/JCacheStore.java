package dev.quota.jcache;

import dev.quota.core.QuotaStoreException;
import dev.quota.core.spi.Adjustment;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.LeaseHolder;
import dev.quota.core.spi.PerBucketStore;
import dev.quota.core.spi.StoreFailures;
import dev.quota.core.spi.Take;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.Factory;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.expiry.EternalExpiryPolicy;
import javax.cache.expiry.ExpiryPolicy;
import javax.cache.expiry.ModifiedExpiryPolicy;
import org.jspecify.annotations.Nullable;

/**
 * Buckets in a JCache (JSR-107) cache of {@code String} keys and {@code byte[]} values, shared by every
 * instance through the data grid behind it: Payara's Hazelcast, or any grid whose JCache is a
 * cluster. Bucket4j's bucket states, computed exactly as by the other stores.
 *
 * <pre>{@code
 * Cache<String, byte[]> cache = JCacheStore.cache(cacheManager, "quota-buckets");
 * QuotaStore store = JCacheStore.builder(cache).build();           // compare-and-swap
 * }</pre>
 *
 * <p>Two ways to update a bucket ({@link Update}):
 * <ul>
 *   <li>{@link Update#COMPARE_AND_SWAP} (the default): all of a customer's buckets are one entry (every
 *       bucket key with the same {@code {...}} part: {@code quota:{c.<c>}}); a decision reads the entry,
 *       computes every bucket in this JVM, and writes it back with {@code replace(key, old, new)} or
 *       {@code putIfAbsent}: one read and one write, atomic over the customer's buckets. A lost race
 *       computes again, up to the {@link JCacheStoreBuilder#retryBudget retry budget} of lost races.
 *       Only byte arrays travel between members, so it works on Payara whatever the application is
 *       called on each member and whatever thread calls. Needs a provider that compares values in
 *       serialized form (Hazelcast does; {@code build()} checks it).
 *   <li>{@link Update#ENTRY_PROCESSOR}: the same entries, each decision one {@code invoke} of this
 *       module's entry processor, run where the entry lives. Needs a provider whose entry processors
 *       run atomically where the data is (Hazelcast, Apache Ignite, Oracle Coherence), and this
 *       module's classes deserializable on every member.
 * </ul>
 * Every instance sharing a cache updates buckets the same way.
 *
 * <p>A decision over buckets in several entries (a customer's, and a limit every customer shares)
 * takes one entry at a time and gives back what a refusal must not keep ({@link PerBucketStore}):
 * JCache has no atomic change of several keys. It never admits what an atomic store would refuse;
 * a concurrent request may meanwhile find a bucket short.
 *
 * <p>Idle customers: with compare-and-swap on Hazelcast, each entry expires when its buckets would be
 * full again plus {@link JCacheStoreBuilder#expiryMargin the margin}. Otherwise the cache's own expiry
 * policy decides; it must keep an entry, after each write, at least as long as the longest time a
 * bucket needs to refill fully (e.g. {@link #cache(CacheManager, String, Duration)}); the store warns
 * when a bucket needs longer.
 *
 * <p>In-flight leases on Hazelcast: a lease this store takes for a decision that names no
 * {@link LeaseHolder} records this member (the tag of its member UUID), and each take from a lease
 * set frees, in the same entry change, the slots of the members the cluster removed while this
 * member watched (killed, their host gone): a dead member's leases come back at each customer's next
 * request once the cluster has removed it, not at their lease timeout. A live member's are never
 * freed. See {@link JCacheStoreBuilder#memberLeases}.
 *
 * <p>Failures of the cache become {@link QuotaStoreException}s: the decision is refused with 503,
 * and behind a {@link dev.quota.core.resilience.CircuitBreakerStore} whose {@link #ping} fails, the
 * limits' failure policy answers.
 * The store does not bound how long a call to the cache may take: the provider's own operation
 * timeout does (Hazelcast: {@code hazelcast.operation.call.timeout.millis}, default 60 s).
 */
public final class JCacheStore extends PerBucketStore {

    /** How buckets are changed; see {@link JCacheStore}. */
    public enum Update {
        /** Read, compute in this JVM, conditional write of byte arrays: nothing but bytes between members. */
        COMPARE_AND_SWAP,
        /** An entry processor of this module, run on the member that owns the entry: one grid call per change. */
        ENTRY_PROCESSOR
    }

    private static final String PING_KEY = "quota:ping";

    private final Cache<String, byte[]> cache;
    private final Update update;
    private final Buckets buckets;
    private final String description;
    /** Who holds the leases taken without a holder: this Hazelcast member, or nobody. */
    private final LeaseHolders holders;
    /** {@code cache 'name' failed on }, the start of a failure's message. */
    private final String failedOn;

    JCacheStore(Cache<String, byte[]> cache, Update update, Buckets buckets, String description,
                LeaseHolders holders) {
        this.cache = cache;
        this.update = update;
        this.buckets = buckets;
        this.description = description;
        this.holders = holders;
        this.failedOn = "cache '" + cache.getName() + "' failed on ";
    }

    /** A builder for a store over {@code cache}, with the defaults described on {@link JCacheStoreBuilder}. */
    public static JCacheStoreBuilder builder(Cache<String, byte[]> cache) {
        return new JCacheStoreBuilder(cache);
    }

    /**
     * The cache {@code name} of {@code manager}, created if no member has created it yet: {@code String}
     * keys, {@code byte[]} values, stored by value, entries kept until removed (for compare-and-swap on
     * Hazelcast, which expires each entry itself). Safe when several members create it at once.
     *
     * @throws ClassCastException if the cache exists with other key or value types
     * @throws javax.cache.CacheException if the cache cannot be created
     */
    public static Cache<String, byte[]> cache(CacheManager manager, String name) {
        return open(manager, name, EternalExpiryPolicy.factoryOf());
    }

    /**
     * As {@link #cache(CacheManager, String)}, but a new cache drops an entry {@code expireAfterWrite}
     * after it was created or last written ({@code ModifiedExpiryPolicy}): for entry processors, or a
     * provider without per-entry expiry. Give it at least the longest time any bucket needs to refill
     * fully plus a margin: a plan of 1,000 a day refilled greedily needs 1 day, so e.g. 25 hours.
     * An existing cache keeps its own policy.
     *
     * @throws IllegalArgumentException if {@code expireAfterWrite} is not positive
     * @throws ClassCastException if the cache exists with other key or value types
     * @throws javax.cache.CacheException if the cache cannot be created
     */
    public static Cache<String, byte[]> cache(CacheManager manager, String name, Duration expireAfterWrite) {
        if (expireAfterWrite.isNegative() || expireAfterWrite.isZero()) {
            throw new IllegalArgumentException("expireAfterWrite must be positive but was " + expireAfterWrite);
        }
        long millis = Math.max(1, expireAfterWrite.toMillis());
        return open(manager, name, ModifiedExpiryPolicy.factoryOf(
                new javax.cache.expiry.Duration(TimeUnit.MILLISECONDS, millis)));
    }

    /**
     * How many members share {@code cache}'s grid, for {@link dev.quota.core.QuotaServiceBuilder#liveInstances}
     * (the {@code local} failure policy divides each limit by it while the grid is unreachable): on
     * Hazelcast (Payara's grid included) the member's own view of its cluster, asked without a
     * remote call; on other providers always 1. On Payara every server of the cluster is a member
     * and runs the application; a grid with members that do not serve it divides more than needed.
     */
    public static IntSupplier members(Cache<?, ?> cache) {
        if (!hazelcastHere()) {
            return () -> 1; // another provider
        }
        IntSupplier hazelcast = HazelcastMembers.of(cache);
        return hazelcast != null ? hazelcast : () -> 1;
    }

    /**
     * This member's place in {@code cache}'s grid, 0-based, for
     * {@code QuotaServiceBuilder.liveInstances(JCacheStore.members(cache), JCacheStore.rank(cache))}:
     * the remainder of a limit divided by the members goes to the lowest ranks. On Hazelcast, the
     * place in the member list (the oldest member first, the same list on every member), asked
     * without a remote call; on other providers always 0 (they count 1 member).
     */
    public static IntSupplier rank(Cache<?, ?> cache) {
        if (!hazelcastHere()) {
            return () -> 0; // another provider, counted as one member
        }
        IntSupplier hazelcast = HazelcastMembers.rankOf(cache);
        return hazelcast != null ? hazelcast : () -> 0;
    }

    /** This member as the holder of the leases taken through {@code cache}: on Hazelcast its member, else nobody. */
    static LeaseHolders leaseHolders(Cache<?, ?> cache) {
        if (!hazelcastHere()) {
            return LeaseHolders.NONE;
        }
        LeaseHolders hazelcast = HazelcastMembers.leaseHoldersOf(cache);
        return hazelcast != null ? hazelcast : LeaseHolders.NONE;
    }

    /** Whether Hazelcast's classes can be loaded here; the store never loads them otherwise. */
    private static boolean hazelcastHere() {
        try {
            Class.forName("com.hazelcast.cache.HazelcastCacheManager", false, JCacheStore.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    @Override
    protected ConsumeResult consumeOne(Take take) {
        List<Take> held = held(List.of(take));
        return call(take.key(), () -> buckets.consume(held).get(0));
    }

    /** One group per entry: all of a customer's buckets in one step, a shared limit in another. */
    @Override
    protected List<int[]> groups(List<Take> takes) {
        return BucketEntry.groups(takes);
    }

    @Override
    protected List<ConsumeResult> consumeGroup(List<Take> group) {
        List<Take> held = held(group);
        return call(group.get(0).key(), () -> buckets.consume(held));
    }

    /** The takes, a lease take without a holder held by this member ({@link #holders}); the same list when none is. */
    private List<Take> held(List<Take> takes) {
        List<Take> held = takes;
        @Nullable LeaseHolder holder = null;
        for (int i = 0; i < takes.size(); i++) {
            Take take = takes.get(i);
            if (take.spec().leases() && LeaseHolder.NONE.equals(take.holder())) {
                if (holder == null) {
                    holder = holders.current();
                    if (LeaseHolder.NONE.equals(holder)) {
                        return takes;
                    }
                    held = new ArrayList<>(takes);
                }
                held.set(i, take.heldBy(holder));
            }
        }
        return held;
    }

    /** The holder a lease taken now without one would get (tests). */
    LeaseHolder leaseHolder() {
        return holders.current();
    }

    @Override
    public void addTokens(BucketKey key, BucketSpec spec, long tokens) {
        adjust(List.of(Adjustment.ofTokens(key, spec, tokens)));
    }

    @Override
    public void releaseLease(BucketKey key, BucketSpec spec, long lease) {
        adjust(List.of(Adjustment.leaseRelease(key, spec, lease)));
    }

    /** One atomic change per entry: a customer's buckets together, a shared limit's on its own. */
    @Override
    public void adjust(List<Adjustment> adjustments) {
        if (adjustments.isEmpty()) {
            throw new IllegalArgumentException("an adjustment needs at least one bucket");
        }
        Map<String, List<Adjustment>> entries = new LinkedHashMap<>();
        for (Adjustment adjustment : adjustments) {
            entries.computeIfAbsent(BucketEntry.entryKey(adjustment.key().value()), k -> new ArrayList<>(2))
                    .add(adjustment);
        }
        for (List<Adjustment> group : entries.values()) {
            call(group.get(0).key(), () -> {
                buckets.adjust(group);
                return null;
            });
        }
    }

    /** Reads the entry (one {@code get}) and computes in this JVM, whichever the update: a peek writes nothing. */
    @Override
    public ConsumeResult peek(BucketKey key, BucketSpec spec) {
        return call(key, () -> buckets.peek(key, spec));
    }

    @Override
    public void reset(BucketKey key) {
        call(key, () -> {
            buckets.reset(key);
            return null;
        });
    }

    /** How this store updates a bucket. */
    public Update update() {
        return update;
    }

    /**
     * Returns when the cache answers a read: the health check for a circuit breaker,
     * {@code CircuitBreakerStore.builder(store).healthCheck(store::ping)}.
     *
     * @throws QuotaStoreException if the cache does not answer
     */
    public void ping() {
        call(new BucketKey(PING_KEY), () -> cache.containsKey(PING_KEY));
    }

    @Override
    public String describe() {
        return description;
    }

    /**
     * Stops watching the grid's members; releases nothing else: the cache, its manager and the grid
     * belong to the application or server.
     */
    @Override
    public void close() {
        holders.close();
    }

    private <T> T call(BucketKey key, Supplier<T> operation) {
        return StoreFailures.call(failedOn + key, operation);
    }

    private static Cache<String, byte[]> open(CacheManager manager, String name,
                                              Factory<? extends ExpiryPolicy> expiry) {
        Objects.requireNonNull(manager, "manager");
        Objects.requireNonNull(name, "name");
        Cache<String, byte[]> existing = manager.getCache(name, String.class, byte[].class);
        if (existing != null) {
            return existing;
        }
        MutableConfiguration<String, byte[]> config = new MutableConfiguration<String, byte[]>()
                .setTypes(String.class, byte[].class).setStoreByValue(true).setExpiryPolicyFactory(expiry);
        try {
            return manager.createCache(name, config);
        } catch (CacheException e) {
            // another member created it in between
            Cache<String, byte[]> created = manager.getCache(name, String.class, byte[].class);
            if (created == null) {
                throw e;
            }
            return created;
        }
    }
}
