package dev.quota.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The retry-after a decision reports is the stores' own refill time, never rounded down. */
class DrawRefillTimeTest {

    @Test
    void refillTime_ofAGreedyLimit_isNotOneNanosecondShort() {
        Limit sevenADay = new Limit("daily", 1000, Refill.greedy(7, Duration.ofDays(1)));

        assertThat(Draw.refillTime(sevenADay, 1000)).isEqualTo(Duration.ofNanos(12_342_857_142_857_143L));
    }

    @Test
    void untilOneToken_ofAnEmptyGreedyBucketReadInWholeTokens_isTheExactWaitNotAWholeToken() {
        // the failed-key count's default: 10 per minute, one token every 6 s
        Limit tenAMinute = new Limit("failed-keys", 10, Refill.greedy(10, Duration.ofMinutes(1)));

        Duration wait = emptiedThenReadAfter(tenAMinute, Duration.ofMillis(1500), 1);

        assertThat(wait).isEqualTo(Duration.ofMillis(4500));
    }

    @Test
    void untilOneToken_ofAnEmptyIntervalBucket_isTheNextPeriodsStart() {
        Limit tenAMinute = new Limit("failed-keys", 10, Refill.interval(10, Duration.ofMinutes(1)));

        Duration wait = emptiedThenReadAfter(tenAMinute, Duration.ofSeconds(20), 10);

        assertThat(wait).isEqualTo(Duration.ofSeconds(40));
    }

    /**
     * Empties a bucket of {@code limit} in an in-JVM store, reads it {@code later}, and checks
     * against the store that the wait {@link Draw#untilOneToken} gives is exact: the store has no
     * token one nanosecond before it, and {@code arriving} at it.
     */
    private static Duration emptiedThenReadAfter(Limit limit, Duration later, long arriving) {
        MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
        InMemoryStore store = InMemoryStore.builder().clock(clock).build();
        BucketKey key = new BucketKey("guard:203.0.113.7");
        BucketSpec spec = BucketSpec.of(List.of(limit), 1);
        assertThat(store.tryConsume(key, spec, limit.capacity()).tokensTaken()).isTrue();
        clock.advance(later);
        ConsumeResult read = store.peek(key, spec);
        assertThat(read.remaining()).containsExactly(0);

        Duration wait = Draw.untilOneToken(limit, read.nanosToFull());

        clock.advance(wait.minusNanos(1));
        assertThat(store.peek(key, spec).remaining()).as("1 ns before the wait").containsExactly(0);
        clock.advance(Duration.ofNanos(1));
        assertThat(store.peek(key, spec).remaining()).as("at the wait").containsExactly(arriving);
        return wait;
    }
}
