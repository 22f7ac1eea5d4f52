package dev.quota.redis;

import dev.quota.core.QuotaStoreException;
import dev.quota.core.internal.Bandwidths;
import dev.quota.core.spi.Adjustment;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketMath;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.spi.SplitConsume;
import dev.quota.core.spi.StoreFailures;
import dev.quota.core.spi.Take;
import dev.quota.redis.internal.encoding.KeySlots;
import dev.quota.redis.internal.engine.CasEngine;
import dev.quota.redis.internal.engine.EngineSettings;
import dev.quota.redis.internal.transport.RedissonLink;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * Buckets in Redis, shared by every instance: Bucket4j's bucket states, changed by compare-and-swap
 * computed in this JVM, over Redisson (standalone, Sentinel or Cluster).
 *
 * <p>What it does, and why:
 * <ul>
 *   <li>a decision over several buckets (plan, calendar day, rule, shared limit, amount) is one
 *       round trip: one script checks that every key holds what this instance assumed and writes
 *       them all, or writes nothing and answers what they hold;
 *   <li>concurrent decisions of this instance share round trips (one caller combines everyone's),
 *       so a hot customer costs Redis a fraction of a command per request; on a key only this
 *       instance writes, the next script goes before the last one's reply (up to four on their
 *       way), computed on what that one writes and valid only if it wrote; {@link #conflicts()}
 *       counts the scripts that found a key changed by another instance;
 *   <li>a consume starts from the state this instance last wrote or saw for the key, so a customer
 *       served by one instance is never read before it is written; a key another instance wrote
 *       costs one more round trip;
 *   <li>a refusal computed from states Redis confirmed within {@link RedisStoreBuilder#rejectLocallyFor}
 *       (default 1 s) needs no command at all, so a client flooding at 20 times its limit costs Redis
 *       about what its admitted requests cost;
 *   <li>every key expires after the time its bucket needs to refill fully plus a margin, so idle
 *       customers cost no memory;
 *   <li>a config version change swaps a stored bucket's limits on its next use and keeps its usage;
 *   <li>a key that holds something other than a bucket (another type, garbage bytes) is deleted
 *       with a WARN log and the bucket starts full, instead of failing that customer's requests;
 *   <li>in Redis Cluster, a customer's buckets share a hash slot (one script); a decision that also
 *       takes from a shared limit (another slot) sends both scripts at once and gives back what one
 *       took if the other refused;
 *   <li>a {@link RedisTimeClock} given as its clock samples Redis through this store's client.
 * </ul>
 * Build it with {@link #builder()}.
 */
public final class RedisStore implements QuotaStore {

    private final RedissonClient client;
    private final boolean ownsClient;
    private final boolean cluster;
    private final String description;
    private final RedissonLink redisson;
    private final CasEngine engine;
    private final @Nullable RedisTimeClock attachedClock;

    RedisStore(RedisStoreBuilder builder, RedissonClient client, boolean ownsClient, String description) {
        this.client = client;
        this.ownsClient = ownsClient;
        this.description = description;
        this.cluster = client.getConfig().isClusterConfig();
        var expiry = ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(builder.expiryMargin);
        this.redisson = new RedissonLink(((Redisson) client).getCommandExecutor(), builder.ownConnections);
        this.engine = new CasEngine(builder.link.apply(redisson), Bandwidths.timeMeter(builder.clock), builder.wallNanos,
                new EngineSettings(expiry, builder.timeout.toNanos(), builder.retryBudget,
                        builder.rejectLocallyFor.toNanos(), builder.reuseWrittenState, cluster,
                        builder.maxRememberedKeys));
        // a Redis clock given to this store samples through this store's client, and stops with it
        this.attachedClock = builder.clock instanceof RedisTimeClock redisTime && redisTime.attach(client)
                ? redisTime : null;
    }

    /** A builder: name a Redis (standalone, sentinel or cluster) or hand over a Redisson client. */
    public static RedisStoreBuilder builder() {
        return new RedisStoreBuilder();
    }

    @Override
    public List<ConsumeResult> tryConsume(List<Take> takes) {
        BucketMath.requireDistinctKeys(takes);
        List<int[]> slots = cluster ? bySlot(takes) : List.of();
        if (slots.size() <= 1) {
            return engine.consume(takes);
        }
        return SplitConsume.run(takes, slots, new SplitConsume.Groups() {
            @Override
            public List<List<ConsumeResult>> consume(List<List<Take>> groups) {
                return engine.consumeAll(groups);
            }

            @Override
            public void giveBack(Adjustment adjustment) {
                engine.adjust(List.of(List.of(adjustment)));
            }
        });
    }

    @Override
    public void addTokens(BucketKey key, BucketSpec spec, long tokens) {
        engine.addTokens(key, spec, tokens);
    }

    @Override
    public void releaseLease(BucketKey key, BucketSpec spec, long lease) {
        engine.adjust(List.of(List.of(Adjustment.leaseRelease(key, spec, lease))));
    }

    /** One script per hash slot, all sent before any reply is awaited: one round trip. */
    @Override
    public void adjust(List<Adjustment> adjustments) {
        if (adjustments.isEmpty()) {
            throw new IllegalArgumentException("an adjustment needs at least one bucket");
        }
        if (!cluster) {
            engine.adjust(List.of(adjustments));
            return;
        }
        Map<Integer, List<Adjustment>> slots = new LinkedHashMap<>();
        for (Adjustment adjustment : adjustments) {
            slots.computeIfAbsent(KeySlots.slot(adjustment.key().value()), s -> new ArrayList<>()).add(adjustment);
        }
        engine.adjust(new ArrayList<>(slots.values()));
    }

    @Override
    public ConsumeResult peek(BucketKey key, BucketSpec spec) {
        return BucketMath.peek(engine.read(key.value()), spec, engine.now());
    }

    @Override
    public void reset(BucketKey key) {
        engine.delete(key.value());
    }

    @Override
    public String describe() {
        return description;
    }

    /** The Redisson client this store talks through. */
    public RedissonClient client() {
        return client;
    }

    /**
     * Returns when every Redis master answers ({@code DBSIZE}) within the store's timeout: the
     * health check for a circuit breaker,
     * {@code CircuitBreakerStore.builder(store).healthCheck(store::ping)}.
     *
     * @throws QuotaStoreException if a master does not answer in time
     */
    public void ping() {
        StoreFailures.call("redis does not answer (" + description + ")", () -> client.getKeys().count());
    }

    /**
     * Compare-and-swap scripts of this store that found a key changed since it last saw it, since
     * the store was built: each wrote nothing and its decisions were computed again from what the
     * keys held, one more round trip. Divided by the decisions made, it says how contested the keys
     * are: a key nobody else writes costs none; a limit every customer shares, written by many
     * instances, costs up to one a decision. Any thread.
     */
    public long conflicts() {
        return engine.conflicts();
    }

    /** The Bucket4j engine of this store, for its compliance tests. */
    CasEngine engine() {
        return engine;
    }

    @Override
    public void close() {
        engine.forgetAll();
        redisson.close(); // the connections it held go back to the client's pool
        if (attachedClock != null) {
            attachedClock.close();
        }
        if (ownsClient) {
            client.shutdown();
        }
    }

    /** The takes grouped by Redis Cluster slot, in order of first appearance. */
    private static List<int[]> bySlot(List<Take> takes) {
        Map<Integer, List<Integer>> slots = new LinkedHashMap<>();
        for (int i = 0; i < takes.size(); i++) {
            slots.computeIfAbsent(KeySlots.slot(takes.get(i).key().value()), s -> new ArrayList<>()).add(i);
        }
        List<int[]> out = new ArrayList<>(slots.size());
        for (List<Integer> indexes : slots.values()) {
            out.add(indexes.stream().mapToInt(Integer::intValue).toArray());
        }
        return out;
    }
}
