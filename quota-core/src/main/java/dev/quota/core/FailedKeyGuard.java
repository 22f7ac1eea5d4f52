package dev.quota.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.QuotaStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Key guessing: counts failed API-key lookups per client address group in the shared store, and
 * remembers in this JVM which groups are blocked and which keys have worked from where
 * ({@link KnownKeys}). A group blocked by another instance is blocked here too: a valid key not
 * known at the group on this instance is let through only after a look at the group's count in the
 * shared store ({@link #sharedBlock}), so a guesser gains nothing by moving to the next instance.
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
final class FailedKeyGuard {

    private static final Logger log = LoggerFactory.getLogger(FailedKeyGuard.class);

    static final int MAX_BLOCKED = 10_000;
    /** How long a group the shared store showed unblocked is taken as unblocked without asking again. */
    static final Duration SHARED_CHECK_EVERY = Duration.ofSeconds(1);
    /** How long a key that worked from a group stays known there. */
    static final Duration KNOWN_FOR = KnownKeys.KNOWN_FOR;

    private static final QuotaDecision NOT_BLOCKED =
            QuotaDecision.allowed(List.of());

    private final BucketLayout layout;
    private final DecisionRunner runner;
    private final Clock clock;
    private final Cache<String, Blocked> blocked;
    private final KnownKeys known;
    /**
     * Groups the shared store showed unblocked within the last {@link #SHARED_CHECK_EVERY}: read
     * again only after that, so a group with more keys than it remembers costs a store read a
     * second at most, and a block set elsewhere holds here within a second.
     */
    private final Cache<String, Boolean> unblockedAt;
    private final QuotaStore store;

    FailedKeyGuard(BucketLayout layout, DecisionRunner runner, QuotaStore store, Clock clock) {
        this(layout, runner, store, clock, MAX_BLOCKED);
    }

    /** With another bound on blocked groups, for tests. */
    FailedKeyGuard(BucketLayout layout, DecisionRunner runner, QuotaStore store, Clock clock, int maxBlocked) {
        this.layout = layout;
        this.runner = runner;
        this.store = store;
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
     * Counts one failed lookup of {@code group}; a rejection blocks the group in this JVM. Counted in
     * the shared store while it answers, and in this JVM, on this instance's share of the limit,
     * whenever it does not ({@link DecisionRunner#runCountedLocally}): a slow or timed-out call, a
     * breaker open or half-open before the outage is established, as well as during it. So the limit
     * holds in every phase of a store failure: 10 guesses a minute per address, over all instances.
     */
    QuotaDecision record(QuotaConfig config, String group) {
        QuotaDecision decision = runner.runCountedLocally(share -> List.of(layout.failedKeys(config, group, share)));
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
     * no token left. Blocks the group in this JVM too when so, until the count has a token again:
     * to the nanosecond, from the bucket's time to full, as a rate limit's refusal is (10 per
     * minute, read 1 s after it emptied: 5 s, not the whole 6 s of a token). One store read, asked only for a
     * valid key not known at the group; a store that cannot answer blocks nothing (the count itself
     * follows its failure policy when the next unknown key is counted).
     */
    QuotaDecision sharedBlock(QuotaConfig config, String group) {
        Draw slot = layout.failedKeys(config, group, LocalShare.WHOLE);
        if (slot.mode() == Mode.SHADOW || unblockedAt.getIfPresent(group) != null) {
            return NOT_BLOCKED;
        }
        ConsumeResult result;
        try {
            result = store.peek(slot.key(), slot.spec());
        } catch (RuntimeException e) {
            log.debug("the failed-key count of an address could not be read: {}", e.toString());
            return NOT_BLOCKED;
        }
        for (int i = 0; i < slot.declared().size(); i++) {
            long remaining = result.remaining()[i];
            if (remaining < 1) {
                Limit limit = slot.declared().get(i);
                Duration toFull = Duration.ofNanos(result.nanosToFull());
                Duration retry = slot.window() != null ? slot.window().remaining(clock.instant())
                        : Draw.untilOneToken(limit, result.nanosToFull());
                Duration reset = slot.window() != null ? retry
                        : min(Draw.refillTime(limit, limit.capacity() - remaining), toFull);
                LimitStatus status = LimitStatus.of(slot.policies().get(i), limit, LimitStatus.Role.FAILED_KEYS, 0,
                        reset, retry);
                QuotaDecision rejection = QuotaDecision.rejected(status, retry);
                block(group, rejection);
                return rejection;
            }
        }
        unblockedAt.put(group, Boolean.TRUE);
        return NOT_BLOCKED;
    }

    /** Remembers that a request with the key of this hash was admitted from {@code group}. */
    void admitted(String group, String keyHash) {
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
