package dev.quota.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Key guessing: counts failed API-key lookups per client address group in the shared store, and
 * remembers in this JVM which groups are blocked and which keys have worked from where.
 *
 * <p>While a group is blocked, a key that worked from it in the last {@link #KNOWN_FOR} keeps
 * working (with {@link Identity.WhileBlocked#KNOWN_KEYS}, the default): the customers behind a
 * shared NAT are not locked out by one guesser among them, while no new key can be tried from there,
 * so guessing gets nowhere. With {@link Identity.WhileBlocked#NO_KEYS} every key is refused until
 * the block ends.
 *
 * <p>Bounded: at most {@link #MAX_BLOCKED} blocked groups (each dropped when its block ends; past the
 * bound, the least used first) and {@link #MAX_KNOWN} known key and group pairs.
 */
final class FailedKeyGuard {

    static final int MAX_BLOCKED = 10_000;
    static final int MAX_KNOWN = 100_000;
    /** How long a key that worked from a group stays known there. */
    static final Duration KNOWN_FOR = Duration.ofHours(24);

    private static final QuotaDecision NOT_BLOCKED =
            new QuotaDecision(QuotaDecision.Outcome.ALLOWED, List.of(), null, Duration.ZERO);

    private final BucketLayout layout;
    private final DecisionRunner runner;
    private final Clock clock;
    private final Cache<String, Blocked> blocked;
    private final Cache<String, Boolean> known;

    FailedKeyGuard(BucketLayout layout, DecisionRunner runner, Clock clock) {
        this(layout, runner, clock, MAX_BLOCKED);
    }

    /** With another bound on blocked groups, for tests. */
    FailedKeyGuard(BucketLayout layout, DecisionRunner runner, Clock clock, int maxBlocked) {
        this.layout = layout;
        this.runner = runner;
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
        this.known = Caffeine.newBuilder()
                .maximumSize(MAX_KNOWN)
                .ticker(() -> nanos(clock.instant()))
                .expireAfterWrite(KNOWN_FOR)
                .executor(Runnable::run)
                .build();
    }

    /** Counts one failed lookup of {@code group}; a rejection blocks the group in this JVM. */
    QuotaDecision record(QuotaConfig config, String group) {
        QuotaDecision decision = runner.run(share -> List.of(layout.failedKeys(config, group, share)));
        if (decision.outcome() == QuotaDecision.Outcome.REJECTED) {
            block(group, decision);
        }
        return decision;
    }

    /** Blocks {@code group} in this JVM for the rejection's retry-after. */
    void block(String group, QuotaDecision rejection) {
        blocked.put(group, new Blocked(clock.instant().plus(rejection.retryAfter()), rejection));
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
        LimitStatus violated = block.decision().violated();
        LimitStatus now = new LimitStatus(violated.policy(), violated.limit(), violated.remaining(),
                min(violated.resetAfter(), left), left, true);
        return new QuotaDecision(QuotaDecision.Outcome.REJECTED, List.of(now), now, left);
    }

    /** Remembers that the key with this hash worked from {@code group}. */
    void worked(String group, String keyHash) {
        known.put(group + ' ' + keyHash, Boolean.TRUE);
    }

    /** Whether the key with this hash worked from {@code group} within {@link #KNOWN_FOR}. */
    boolean knownAt(String group, String keyHash) {
        return known.getIfPresent(group + ' ' + keyHash) != null;
    }

    private static long nanos(Instant instant) {
        return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private record Blocked(Instant until, QuotaDecision decision) {
    }
}
