package dev.quota.core.internal.identity;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Which API keys had a request admitted from which client address group in the last
 * {@link #KNOWN_FOR}: the keys that keep working from a group while it is blocked for guessing.
 *
 * <p>Bounded so that no traffic from elsewhere pushes a group's own keys out:
 * <ul>
 *   <li>a key is remembered in at most {@link #GROUPS_PER_KEY} groups, the most recent ones: one
 *       key used from 130,000 addresses takes 16 entries, not 130,000;
 *   <li>a group remembers at most {@link #KEYS_PER_GROUP} keys, the most recent ones (a
 *       gateway's 10,000 customers);
 *   <li>at most {@link #MAX_ENTRIES} key and group pairs in all. Past that, groups are evicted by
 *       Caffeine's frequency sketch: a group whose keys are looked up often (a NAT's office) stays,
 *       one-off groups go first. Flooding it takes 6,250 keys in good standing, each admitted from
 *       16 groups.
 * </ul>
 * Only admitted requests are recorded ({@link dev.quota.core.QuotaService#decide}): a key whose every request is
 * refused (an exhausted customer, a stolen key of a blocked one) records nothing.
 *
 * <p>Thread-safety: reads are lock-free (a concurrent map per group). Writes take this object's
 * lock, once per key, group and {@link #REFRESH_EVERY} at most, and call no store while holding it.
 */
final class KnownKeys {

    /** How long a key that worked from a group stays known there. */
    static final Duration KNOWN_FOR = Duration.ofHours(24);
    static final int GROUPS_PER_KEY = 16;
    static final int KEYS_PER_GROUP = 10_000;
    static final int MAX_ENTRIES = 100_000;
    /** A key known at a group is written again at most this often (its 24 hours restart). */
    static final Duration REFRESH_EVERY = Duration.ofMinutes(1);
    private static final long KNOWN_FOR_MILLIS = KNOWN_FOR.toMillis();
    private static final long REFRESH_EVERY_MILLIS = REFRESH_EVERY.toMillis();

    private final Clock clock;
    /**
     * Per group: each key's last admitted request, in the clock's epoch milliseconds (read on every
     * request: a millisecond reading allocates nothing, an {@code Instant} does). Weighed by its size.
     */
    private final Cache<String, Map<String, Long>> groups;
    /** Per key: the groups it is remembered in, oldest first; only touched under the lock. */
    private final Cache<String, ArrayDeque<String>> keys;

    KnownKeys(Clock clock) {
        this.clock = clock;
        this.groups = Caffeine.newBuilder()
                .maximumWeight(MAX_ENTRIES)
                .<String, Map<String, Long>>weigher((group, known) -> 1 + known.size())
                .ticker(() -> nanos(clock))
                .expireAfterAccess(KNOWN_FOR)
                .executor(Runnable::run)
                .build();
        this.keys = Caffeine.newBuilder()
                .maximumSize(MAX_ENTRIES)
                .ticker(() -> nanos(clock))
                .expireAfterAccess(KNOWN_FOR)
                .executor(Runnable::run)
                .build();
    }

    /** Whether a request with the key of this hash was admitted from {@code group} within {@link #KNOWN_FOR}. */
    boolean knownAt(String group, String keyHash) {
        Map<String, Long> known = groups.getIfPresent(group);
        Long last = known == null ? null : known.get(keyHash);
        return last != null && last + KNOWN_FOR_MILLIS > clock.millis();
    }

    /** Records that a request with the key of this hash was admitted from {@code group}. */
    void admitted(String group, String keyHash) {
        long now = clock.millis();
        Map<String, Long> current = groups.getIfPresent(group);
        Long last = current == null ? null : current.get(keyHash);
        if (last != null && last + REFRESH_EVERY_MILLIS > now) {
            return; // the hot path: known, recently written
        }
        synchronized (this) {
            ArrayDeque<String> keyGroups = keys.get(keyHash, k -> new ArrayDeque<>(4));
            if (!keyGroups.remove(group) && keyGroups.size() >= GROUPS_PER_KEY) {
                forget(keyGroups.removeFirst(), keyHash);
            }
            keyGroups.addLast(group);
            Map<String, Long> known = groups.get(group, g -> new ConcurrentHashMap<>(4));
            if (known.put(keyHash, now) == null && known.size() > KEYS_PER_GROUP) {
                String oldest = oldestOtherThan(known, keyHash);
                if (oldest != null) {
                    known.remove(oldest);
                    ArrayDeque<String> oldestGroups = keys.getIfPresent(oldest);
                    if (oldestGroups != null) {
                        oldestGroups.remove(group);
                    }
                }
            }
            groups.put(group, known); // weighed again with its new size
        }
    }

    private void forget(String group, String keyHash) {
        Map<String, Long> known = groups.getIfPresent(group);
        if (known != null) {
            known.remove(keyHash);
        }
    }

    private static @Nullable String oldestOtherThan(Map<String, Long> known, String keyHash) {
        String oldest = null;
        long at = Long.MAX_VALUE;
        for (Map.Entry<String, Long> entry : known.entrySet()) {
            if (!entry.getKey().equals(keyHash) && entry.getValue() <= at) {
                at = entry.getValue();
                oldest = entry.getKey();
            }
        }
        return oldest;
    }

    /** The clock in nanoseconds, from its milliseconds: expiry after a day needs no finer grain. */
    private static long nanos(Clock clock) {
        return clock.millis() * 1_000_000L;
    }
}
