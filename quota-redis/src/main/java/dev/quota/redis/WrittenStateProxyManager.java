package dev.quota.redis;

import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ClientSideConfig;
import io.github.bucket4j.distributed.proxy.RetryStrategy;
import io.github.bucket4j.distributed.proxy.generic.compare_and_swap.AbstractCompareAndSwapBasedProxyManager;
import io.github.bucket4j.distributed.proxy.generic.compare_and_swap.AsyncCompareAndSwapOperation;
import io.github.bucket4j.distributed.proxy.generic.compare_and_swap.CompareAndSwapOperation;
import io.github.bucket4j.distributed.remote.CommandResult;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import io.github.bucket4j.distributed.remote.Request;
import io.github.bucket4j.redis.consts.LuaScripts;
import io.github.bucket4j.redis.redisson.cas.RedissonBasedProxyManager;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RFuture;
import org.redisson.client.RedisException;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.protocol.RedisCommands;
import org.redisson.command.CommandAsyncExecutor;

/**
 * Bucket4j's compare-and-swap over Redisson, as {@link RedissonBasedProxyManager} does it, with one
 * round trip saved: a consume starts from the state this instance last wrote for the key instead
 * of reading it first. While no other instance wrote the key since, the compare-and-swap succeeds
 * and the decision cost one EVALSHA instead of a GET and an EVALSHA.
 *
 * <p>The remembered state is never trusted on its own: a result is returned only if the
 * compare-and-swap that wrote it succeeded (which proves the state was current), or if it was
 * computed from a state just read from Redis. A result that wrote nothing (a rejection, a read) and
 * came from remembered state is computed again from a fresh GET; a failed compare-and-swap is
 * retried at once from a fresh GET. So every answer is the one the plain proxy manager would give.
 *
 * <p>A key written by several instances (a round-robin load balancer, a hot customer) would miss
 * every time: after a miss the key is read first again for {@link #CONTENDED_NANOS}. A state is not
 * offered once Redis has expired the key it was written to (a customer back after a long pause).
 */
final class WrittenStateProxyManager extends AbstractCompareAndSwapBasedProxyManager<String> {

    /** How long a key whose remembered state was outdated is read before each write: 10 s. */
    static final long CONTENDED_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** Remembered state is not offered in the last second of the key's life in Redis. */
    private static final long EXPIRY_MARGIN_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** The operation the calling thread's {@link #execute} runs (the synchronous API runs on one thread). */
    private static final ThreadLocal<Operation> CURRENT = new ThreadLocal<>();

    /** Set on the thread whose compare-and-swap from remembered state missed: retry it at once. */
    private static final ThreadLocal<boolean[]> MISSED = ThreadLocal.withInitial(() -> new boolean[1]);

    private final CommandAsyncExecutor redis;
    private final ExpirationAfterWriteStrategy expiration;
    private final TimeMeter clock;
    private final int maxEntries;
    private final ConcurrentHashMap<String, Known> known = new ConcurrentHashMap<>();

    /**
     * @param config     clock, timeout and retry strategy; the retry strategy is wrapped so a miss
     *                   of remembered state is retried without delay
     * @param maxEntries the most keys whose state is remembered
     */
    WrittenStateProxyManager(CommandAsyncExecutor redis, ClientSideConfig config, ExpirationAfterWriteStrategy expiration,
                             TimeMeter clock, int maxEntries) {
        super(retryingMissesAtOnce(config.withClientClock(clock)));
        this.redis = redis;
        this.expiration = expiration;
        this.clock = clock;
        this.maxEntries = maxEntries;
    }

    private static ClientSideConfig retryingMissesAtOnce(ClientSideConfig config) {
        Optional<RetryStrategy> configured = config.getRetryStrategy();
        RetryStrategy strategy = metadata -> {
            boolean[] missed = MISSED.get();
            if (missed[0]) {
                missed[0] = false;
                return true; // retried at once from a fresh read
            }
            return configured.isEmpty() || configured.get().shouldRetry(metadata);
        };
        return config.withRetryStrategy(strategy);
    }

    @Override
    public <T> CommandResult<T> execute(String key, Request<T> request) {
        MISSED.get()[0] = false;
        CommandResult<T> result = super.execute(key, request);
        Operation operation = CURRENT.get();
        CURRENT.remove();
        if (operation != null && operation.fromMemory) {
            // computed from remembered state and wrote nothing (a rejection, a read): ask Redis
            known.remove(key);
            result = super.execute(key, request);
            CURRENT.remove();
        }
        return result;
    }

    @Override
    public boolean isExpireAfterWriteSupported() {
        return true;
    }

    @Override
    public boolean isAsyncModeSupported() {
        return false;
    }

    @Override
    public void removeProxy(String key) {
        known.remove(key);
        redis.get(redis.writeAsync(key, RedisCommands.DEL_VOID, key));
    }

    @Override
    protected java.util.concurrent.CompletableFuture<Void> removeAsync(String key) {
        throw new UnsupportedOperationException("the quota store uses the synchronous API only");
    }

    @Override
    protected AsyncCompareAndSwapOperation beginAsyncCompareAndSwapOperation(String key) {
        throw new UnsupportedOperationException("the quota store uses the synchronous API only");
    }

    /** Forgets the state remembered for {@code key}, so its next operation reads Redis first. */
    void forget(String key) {
        known.remove(key);
    }

    /** The number of keys whose state is remembered now. */
    int size() {
        return known.size();
    }

    @Override
    protected CompareAndSwapOperation beginCompareAndSwapOperation(String key) {
        Operation operation = new Operation(key);
        CURRENT.set(operation);
        return operation;
    }

    /**
     * One key's remembered state.
     *
     * @param state   the bytes this instance last wrote, or null when the key is contended
     * @param since   when (System.nanoTime) it was written or found contended
     * @param expires when (System.nanoTime) Redis drops the key we wrote; a state older than that is
     *                not offered (the key is gone, not contended)
     */
    private record Known(byte @Nullable [] state, long since, long expires) {

        /** Whether the remembered state may be offered instead of a read. */
        boolean offerable(long now) {
            return state != null && now - expires < 0;
        }

        /** Whether a new write may replace this entry (a contended mark holds for a while). */
        boolean replaceable(long now) {
            return state != null || now - since >= CONTENDED_NANOS;
        }
    }

    private final class Operation implements CompareAndSwapOperation {
        private final String key;
        private boolean firstRead = true;
        /** The last state handed out came from memory and no compare-and-swap has checked it yet. */
        boolean fromMemory;

        Operation(String key) {
            this.key = key;
        }

        @Override
        public Optional<byte[]> getStateData(Optional<Long> timeoutNanos) {
            if (firstRead) {
                firstRead = false;
                Known k = known.get(key);
                if (k != null && k.offerable(System.nanoTime())) {
                    fromMemory = true;
                    return Optional.of(k.state);
                }
            }
            fromMemory = false;
            byte[] bytes = await(redis.readAsync(key, ByteArrayCodec.INSTANCE, RedisCommands.GET, key), timeoutNanos);
            return Optional.ofNullable(bytes);
        }

        @Override
        public boolean compareAndSwap(byte[] original, byte[] updated, RemoteBucketState newState,
                                      Optional<Long> timeoutNanos) {
            long ttl = expiration.calculateTimeToLiveMillis(newState, clock.currentTimeNanos());
            boolean swapped;
            if (original == null) {
                swapped = ttl > 0
                        ? await(redis.writeAsync(key, ByteArrayCodec.INSTANCE, RedissonBasedProxyManager.SET, key,
                        updated, "PX", ttl, "NX"), timeoutNanos)
                        : await(redis.writeAsync(key, ByteArrayCodec.INSTANCE, RedissonBasedProxyManager.SET, key,
                        updated, "NX"), timeoutNanos);
            } else {
                swapped = ttl > 0
                        ? await(redis.evalWriteAsync(key, ByteArrayCodec.INSTANCE, RedisCommands.EVAL_BOOLEAN,
                        LuaScripts.SCRIPT_COMPARE_AND_SWAP_PX, List.of(key), original, updated, ttl), timeoutNanos)
                        : await(redis.evalWriteAsync(key, ByteArrayCodec.INSTANCE, RedisCommands.EVAL_BOOLEAN,
                        LuaScripts.SCRIPT_COMPARE_AND_SWAP, List.of(key), original, updated), timeoutNanos);
            }
            long now = System.nanoTime();
            Known k = known.get(key);
            if (swapped) {
                // remember what we wrote, unless the key was found contended a moment ago; offer it
                // until a second before Redis expires the key (no expiry: for as long as it is kept)
                if (k == null || k.replaceable(now)) {
                    long expires = ttl > 0 ? now + TimeUnit.MILLISECONDS.toNanos(ttl) - EXPIRY_MARGIN_NANOS
                            : now + Long.MAX_VALUE / 2;
                    remember(new Known(updated.clone(), now, expires));
                }
            } else if (fromMemory) {
                remember(new Known(null, now, now)); // outdated: another instance writes this key too
                MISSED.get()[0] = true;
            } else if (k != null && k.state != null) {
                known.remove(key, k);
            }
            fromMemory = false;
            return swapped;
        }

        private void remember(Known k) {
            if (known.put(key, k) == null && known.size() > maxEntries) {
                evictSome(); // only a new key can push past the bound
            }
        }
    }

    /** Drops a tenth of the remembered keys; they are read from Redis on their next use. */
    private void evictSome() {
        int toDrop = Math.max(1, maxEntries / 10);
        Iterator<String> it = known.keySet().iterator();
        while (toDrop-- > 0 && it.hasNext()) {
            it.next();
            it.remove();
        }
    }

    private <T> T await(RFuture<T> future, Optional<Long> timeoutNanos) {
        if (timeoutNanos.isEmpty()) {
            return redis.get(future);
        }
        try {
            return future.get(timeoutNanos.get(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new RedisException("interrupted while waiting for Redis", e);
        } catch (TimeoutException e) {
            throw new io.github.bucket4j.TimeoutException("no answer from Redis within " + timeoutNanos.get() + " ns",
                    timeoutNanos.get(), timeoutNanos.get());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RedisException) {
                throw (RedisException) e.getCause();
            }
            throw new RedisException("Redis failed: " + e.getCause(), e.getCause());
        }
    }
}
