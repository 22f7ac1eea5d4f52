package dev.quota.core.internal.identity;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import dev.quota.core.Identity;
import dev.quota.core.LimitStatus;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * Key guessing: counts failed API-key lookups per client address group in the shared store
 * ({@link FailedKeyCounts}), and remembers in this JVM which groups are blocked and which keys have
 * worked from where ({@link KnownKeys}). A group blocked by another instance is blocked here too: a
 * valid key not known at the group on this instance is let through only after a look at the group's
 * count in the shared store ({@link #sharedBlock}), so a guesser gains nothing by moving to the next
 * instance.
 *
 * <p>While a group is blocked, a key that had a request admitted from it in the last {@link #KNOWN_FOR} keeps
 * working (with {@link Identity.WhileBlocked#KNOWN_KEYS}, the default): the customers behind a
 * shared NAT are not locked out by one guesser among them, while no new key can be tried from there,
 * so guessing gets nowhere. With {@link Identity.WhileBlocked#NO_KEYS} every key is refused until
 * the block ends.
 *
 * <p>Bounded: at most {@link #MAX_BLOCKED} blocked groups (each dropped when its block ends; past the
 * bound, the least used first); the known keys as {@link KnownKeys} says.
 */
public final class FailedKeyGuard {

    static final int MAX_BLOCKED = 10_000;
    /** How long a group the shared store showed unblocked is taken as unblocked without asking again. */
    static final Duration SHARED_CHECK_EVERY = Duration.ofSeconds(1);
    /** How long a key that worked from a group stays known there. */
    static final Duration KNOWN_FOR = KnownKeys.KNOWN_FOR;

    private static final QuotaDecision NOT_BLOCKED =
            QuotaDecision.allowed(List.of());

    private final FailedKeyCounts counts;
    private final Clock clock;
    private final Cache<String, Blocked> blocked;
    private final KnownKeys known;
    /**
     * Groups the shared store showed unblocked within the last {@link #SHARED_CHECK_EVERY}: read
     * again only after that, so a group with more keys than it remembers costs a store read a
     * second at most, and a block set elsewhere holds here within a second.
     */
    private final Cache<String, Boolean> unblockedAt;

    /** A guard on {@code counts}, its blocks timed by {@code clock}. */
    public FailedKeyGuard(FailedKeyCounts counts, Clock clock) {
        this(counts, clock, MAX_BLOCKED);
    }

    /** With another bound on blocked groups, for tests. */
    FailedKeyGuard(FailedKeyCounts counts, Clock clock, int maxBlocked) {
        this.counts = counts;
        this.clock = clock;
        this.blocked = Caffeine.newBuilder()
                .maximumSize(maxBlocked)
                .ticker(() -> nanos(clock.instant()))
                .expireAfter(new Expiry<String, Blocked>() {
                    @Override
                    public long expireAfterCreate(String group, Blocked block, long now) {
                        return Math.max(0, nanos(block.until()) - now);
                    }

                    @Override
                    public long expireAfterUpdate(String group, Blocked block, long now, long current) {
                        return Math.max(0, nanos(block.until()) - now);
                    }

                    @Override
                    public long expireAfterRead(String group, Blocked block, long now, long current) {
                        return current;
                    }
                })
                .executor(Runnable::run)
                .build();
        this.known = new KnownKeys(clock);
        this.unblockedAt = Caffeine.newBuilder()
                .maximumSize(maxBlocked)
                .ticker(() -> nanos(clock.instant()))
                .expireAfterWrite(SHARED_CHECK_EVERY)
                .executor(Runnable::run)
                .build();
    }

    /**
     * Counts one failed lookup of {@code group} ({@link FailedKeyCounts#count}: held in every phase
     * of a store failure, 10 guesses a minute per address over all instances); a rejection blocks
     * the group in this JVM.
     */
    QuotaDecision record(QuotaConfig config, String group) {
        QuotaDecision decision = counts.count(config, group);
        if (decision.outcome() == QuotaDecision.Outcome.REJECTED) {
            block(group, decision);
        }
        return decision;
    }

    /** Blocks {@code group} in this JVM for the rejection's retry-after. */
    void block(String group, QuotaDecision rejection) {
        // a REJECTED decision always names its limit (QuotaDecision's constructor checks it)
        LimitStatus violated = Objects.requireNonNull(rejection.violated(), "a rejection names its limit");
        blocked.put(group, new Blocked(clock.instant().plus(rejection.retryAfter()), violated));
    }

    /**
     * The block of {@code group} with the time left, or an empty ALLOWED decision. Asked before a
     * key is looked up, without a store call.
     */
    QuotaDecision peek(String group) {
        Blocked block = blocked.getIfPresent(group);
        if (block == null) {
            return NOT_BLOCKED;
        }
        Duration left = Duration.between(clock.instant(), block.until());
        if (left.isNegative() || left.isZero()) {
            return NOT_BLOCKED;
        }
        LimitStatus violated = block.violated();
        LimitStatus now = violated.withResetAfter(min(violated.resetAfter(), left)).withRetryAfter(left);
        return QuotaDecision.rejected(now, left);
    }

    /**
     * The block another instance put on {@code group}: its failed-key count in the shared store has
     * no token left ({@link FailedKeyCounts#exhausted}). Blocks the group in this JVM too when so,
     * for the rejection's retry-after. Asked only for a valid key not known at the group; a group the
     * store showed a token is not asked about again for {@link #SHARED_CHECK_EVERY}; a store that
     * cannot answer blocks nothing (the count itself follows its failure policy when the next
     * unknown key is counted).
     */
    QuotaDecision sharedBlock(QuotaConfig config, String group) {
        if (unblockedAt.getIfPresent(group) != null) {
            return NOT_BLOCKED;
        }
        QuotaDecision read = counts.exhausted(config, group);
        if (read == null) {
            return NOT_BLOCKED;
        }
        if (read.outcome() == QuotaDecision.Outcome.REJECTED) {
            block(group, read);
            return read;
        }
        unblockedAt.put(group, Boolean.TRUE);
        return NOT_BLOCKED;
    }

    /** Remembers that a request with the key of this hash was admitted from {@code group}. */
    public void admitted(String group, String keyHash) {
        known.admitted(group, keyHash);
    }

    /** Whether a request with the key of this hash was admitted from {@code group} within {@link #KNOWN_FOR}. */
    boolean knownAt(String group, String keyHash) {
        return known.knownAt(group, keyHash);
    }

    private static long nanos(Instant instant) {
        return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private record Blocked(Instant until, LimitStatus violated) {
    }
}
