package dev.quota.core;

import dev.quota.core.internal.identity.FailedKeyCounts;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.QuotaStore;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The failed-key counts in the store, as {@link BucketLayout} lays out a group's bucket and
 * {@link DecisionRunner} decides it: the store side of the failed-key guard. In this package because
 * a count is a decision of the engine's, and its refusal's times are {@link Draw}'s.
 */
final class FailedKeyBuckets implements FailedKeyCounts {

    private static final Logger log = LoggerFactory.getLogger(FailedKeyBuckets.class);

    private final BucketLayout layout;
    private final DecisionRunner runner;
    private final QuotaStore store;
    private final Clock clock;

    FailedKeyBuckets(BucketLayout layout, DecisionRunner runner, QuotaStore store, Clock clock) {
        this.layout = layout;
        this.runner = runner;
        this.store = store;
        this.clock = clock;
    }

    /** Counted as {@link DecisionRunner#runCountedLocally} decides. */
    @Override
    public QuotaDecision count(QuotaConfig config, String group) {
        return runner.runCountedLocally(share -> List.of(layout.failedKeys(config, group, share)));
    }

    /**
     * One store read. The retry-after of an empty count is the time until it holds a token again
     * (10 per minute, read 1 s after it emptied: 5 s, not the whole 6 s of a token), as a rate
     * limit's refusal is.
     */
    @Override
    public @Nullable QuotaDecision exhausted(QuotaConfig config, String group) {
        Draw slot = layout.failedKeys(config, group, LocalShare.WHOLE);
        if (slot.mode() == Mode.SHADOW) {
            return null;
        }
        ConsumeResult result;
        try {
            result = store.peek(slot.key(), slot.spec());
        } catch (RuntimeException e) {
            log.debug("the failed-key count of an address could not be read: {}", e.toString());
            return null;
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
                return QuotaDecision.rejected(status, retry);
            }
        }
        return QuotaDecision.allowed(List.of());
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
