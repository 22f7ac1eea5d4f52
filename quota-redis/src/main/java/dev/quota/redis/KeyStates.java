package dev.quota.redis;

import io.github.bucket4j.distributed.remote.RemoteBucketState;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * What this instance remembers of bucket keys: at most {@code max} {@link KeyState}s, the least
 * recently used forgotten first, each forgotten when its key may have expired in Redis.
 *
 * <p>Read and written only by the caller that combines (one thread at a time, handed over through
 * {@link Combiner}'s flag), so it is a plain access-ordered map: a lookup is one hash probe, where
 * a concurrent cache paid for its read and write buffers, frequency sketch and timer wheel on every
 * key of every decision, and its admission policy turned away keys just written. Other threads
 * only ask to forget ({@link #forgetLater}, {@link #forgetAllLater}); the combiner applies that
 * before it next reads ({@link #applyForgets}).
 *
 * <p>The bound counts keys, not customers: a decision touches one key per bucket (the demo's
 * transfer, four of the customer's own and one shared), so 100,000 customers making transfers
 * need 400,000 keys remembered, else each decision on a forgotten key costs a second round trip
 * ({@link RedisStoreBuilder#maxRememberedKeys}).
 */
final class KeyStates {

    /** Expired entries looked at, from the least recently used end, per entry added. */
    private static final int SWEEP = 2;
    /** A remembered state is forgotten this long before Redis expires its key. */
    private static final long EXPIRY_MARGIN_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How long "there is no key" is remembered. */
    private static final long ABSENT_REMEMBERED_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final int max;
    private final LinkedHashMap<String, KeyState> states;
    private final ConcurrentLinkedQueue<String> forgets = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean forgetAll = new AtomicBoolean();

    KeyStates(int max) {
        this.max = max;
        this.states = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, KeyState> eldest) {
                return size() > KeyStates.this.max;
            }
        };
    }

    /** The state remembered for {@code key}, unless there is none or it may have expired by {@code nowNanos}. */
    @Nullable KeyState get(String key, long nowNanos) {
        KeyState state = states.get(key);
        if (state != null && nowNanos - state.expiresNanos() >= 0) {
            states.remove(key);
            return null;
        }
        return state;
    }

    /** Remembers {@code state} for {@code key}; past the bound, the least recently used key is forgotten. */
    void put(String key, KeyState state, long nowNanos) {
        // idle keys leave as new ones come, not only at the bound
        Iterator<KeyState> eldest = states.values().iterator();
        for (int i = 0; i < SWEEP && eldest.hasNext(); i++) {
            if (nowNanos - eldest.next().expiresNanos() >= 0) {
                eldest.remove();
            } else {
                break;
            }
        }
        states.put(key, state);
    }

    /** Forgets {@code key} now (the combiner only). */
    void remove(String key) {
        states.remove(key);
    }

    /** Asks the combiner to forget {@code key} before it next reads; any thread. */
    void forgetLater(String key) {
        forgets.add(key);
    }

    /** Asks the combiner to forget every key before it next reads; any thread. */
    void forgetAllLater() {
        forgetAll.set(true);
    }

    /** Applies the forgets asked for (the combiner only, before a round reads). */
    void applyForgets() {
        if (forgetAll.getAndSet(false)) {
            states.clear();
        }
        String key;
        while ((key = forgets.poll()) != null) {
            states.remove(key);
        }
    }

    /** How many keys are remembered (expired ones included until they are looked at). */
    int size() {
        return states.size();
    }

    /** What is remembered of a key Redis confirmed at {@code nowNanos}, kept as long as its TTL allows. */
    static KeyState knownState(byte @Nullable [] bytes, @Nullable RemoteBucketState state, long nowNanos,
                               long ttlMillis) {
        long life = bytes == null ? ABSENT_REMEMBERED_NANOS
                : ttlMillis > 0 ? Math.max(0, TimeUnit.MILLISECONDS.toNanos(ttlMillis) - EXPIRY_MARGIN_NANOS)
                : Long.MAX_VALUE / 4;
        return new KeyState(bytes, state, nowNanos, nowNanos + life);
    }
}
