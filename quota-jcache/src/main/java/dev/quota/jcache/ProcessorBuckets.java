package dev.quota.jcache;

import dev.quota.core.QuotaStoreException;
import dev.quota.core.internal.Bandwidths;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketMath;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ChargeRule;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.Take;
import dev.quota.core.spi.UnreadableBuckets;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.TokensInheritanceStrategy;
import io.github.bucket4j.distributed.remote.CommandResult;
import io.github.bucket4j.distributed.remote.RemoteCommand;
import io.github.bucket4j.distributed.remote.RemoteVerboseResult;
import io.github.bucket4j.distributed.remote.Request;
import io.github.bucket4j.distributed.remote.commands.AddTokensCommand;
import io.github.bucket4j.distributed.remote.commands.CreateInitialStateWithVersionOrReplaceConfigurationAndExecuteCommand;
import io.github.bucket4j.distributed.remote.commands.TryConsumeAndReturnRemainingTokensCommand;
import io.github.bucket4j.distributed.remote.commands.VerboseCommand;
import io.github.bucket4j.grid.jcache.Bucket4jJCache;
import io.github.bucket4j.grid.jcache.JCacheProxyManager;
import java.util.ArrayList;
import java.util.List;
import javax.cache.Cache;

/**
 * Buckets changed by Bucket4j's own JCache integration: each change is one {@code Cache.invoke} of
 * Bucket4j's entry processor, which runs the command where the entry lives, atomically, in one round
 * trip. The command is the one {@link BucketMath} runs (create or replace the config keeping usage,
 * then consume), with this JVM's clock, so both modes compute the same answers.
 *
 * <p>The processor is a Java-serialized Bucket4j class: the member that owns the entry must be able
 * to deserialize it (Bucket4j on its class path, and for Payara the same application name on every
 * member and a calling thread with a Jakarta EE context).
 */
final class ProcessorBuckets implements Buckets {

    private final Cache<String, byte[]> cache;
    private final JCacheProxyManager<String> proxy;
    private final CacheLifetime lifetime;
    private final TimeMeter time;

    ProcessorBuckets(Cache<String, byte[]> cache, CacheLifetime lifetime, TimeMeter time) {
        this.cache = cache;
        this.proxy = Bucket4jJCache.entryProcessorBasedBuilder(cache).clientClock(time).build();
        this.lifetime = lifetime;
        this.time = time;
    }

    @Override
    public ConsumeResult consume(Take take) {
        long now = time.currentTimeNanos();
        ConsumeResult result = tryConsume(take, take.tokens(), now);
        List<RemoteVerboseResult<ConsumptionProbe>> refusal = new ArrayList<>(1);
        // what the take gives is ChargeRule's answer; its refusal tokens are asked for (a second
        // processor call) only when the rule needs to know whether the bucket has them
        long taken = ChargeRule.taken(List.of(take), i -> result.tokensTaken(), i -> {
            refusal.add(execute(take.key(), take.spec(),
                    VerboseCommand.from(new TryConsumeAndReturnRemainingTokensCommand(take.refusalTokens())), now));
            return refusal.get(0).getValue().isConsumed();
        })[0];
        if (taken == 0 || result.tokensTaken()) {
            return result;
        }
        RemoteVerboseResult<ConsumptionProbe> verbose = refusal.get(0);
        BucketMath.Step paid = new BucketMath.Step(BucketMath.peek(verbose.getState(), take.spec(), now),
                verbose.getState());
        lifetime.check(take.key().value(), paid.result().nanosToFull());
        return BucketMath.charged(paid, take, now);
    }

    private ConsumeResult tryConsume(Take take, long tokens, long now) {
        RemoteVerboseResult<ConsumptionProbe> verbose = execute(take.key(), take.spec(),
                VerboseCommand.from(new TryConsumeAndReturnRemainingTokensCommand(tokens)), now);
        // the state the processor left, read in spec order exactly as the other stores read theirs
        ConsumeResult standing = BucketMath.peek(verbose.getState(), take.spec(), now);
        ConsumptionProbe probe = verbose.getValue();
        if (probe.isConsumed()) {
            lifetime.check(take.key().value(), standing.nanosToFull());
            return new ConsumeResult(true, standing.remaining(), 0, standing.nanosToFull());
        }
        return new ConsumeResult(false, standing.remaining(), Math.max(1, probe.getNanosToWaitForRefill()),
                standing.nanosToFull());
    }

    @Override
    public void addTokens(BucketKey key, BucketSpec spec, long tokens) {
        execute(key, spec, new AddTokensCommand(tokens), time.currentTimeNanos());
    }

    private <T> T execute(BucketKey key, BucketSpec spec, RemoteCommand<T> command, long now) {
        RemoteCommand<T> versioned = new CreateInitialStateWithVersionOrReplaceConfigurationAndExecuteCommand<>(
                Bandwidths.configuration(spec), command, spec.version(), TokensInheritanceStrategy.ADDITIVE);
        Request<T> request = new Request<>(versioned, BucketMath.WIRE_VERSION, now, null);
        CommandResult<T> result;
        try {
            result = proxy.execute(key.value(), request);
        } catch (RuntimeException e) {
            if (!removedUnreadable(key)) {
                throw e;
            }
            result = proxy.execute(key.value(), request); // the bucket starts full
        }
        if (result.isError()) {
            throw new QuotaStoreException("bucket " + key + ": Bucket4j's entry processor answered error type "
                    + result.getResultTypeId());
        }
        return result.getData();
    }

    /**
     * After the processor failed: whether the entry held bytes that are not a bucket state, which
     * the store-wide policy ({@link UnreadableBuckets}) has then removed (the processor cannot read
     * them either, and would fail every request of the customer until the entry expired).
     */
    private boolean removedUnreadable(BucketKey key) {
        byte[] bytes = cache.get(key.value());
        return bytes != null && UnreadableBuckets.read("cache '" + cache.getName() + "'", key.value(), bytes,
                unreadable -> cache.remove(key.value(), unreadable)) == null;
    }
}
