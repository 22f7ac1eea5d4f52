package dev.quota.core.internal.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.TokenLeasing;
import dev.quota.core.spi.Adjustment;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * When a refusal waits for this instance's ask in flight ({@link HotBucket#covers}): after an ask
 * that brought all it asked for (a bucket with room, a burst), it waits; after one that brought
 * less (a drained bucket, every instance taking each token as it comes back), it does not.
 */
class HotBucketTest {

    private static final long SECOND = 1_000_000_000L;
    private static final long FOREVER = Long.MAX_VALUE / 4;
    private static final BucketSpec SPEC =
            BucketSpec.of(List.of(new Limit("rate", 5_000, Refill.greedy(5_000, Duration.ofSeconds(1)))), 1);

    private final List<Adjustment> returned = new ArrayList<>();
    private final HotBucket bucket = new HotBucket(new BucketKey("quota:{c}:p"), "rate", TokenLeasing.DEFAULT,
            TokenLeasing.DEFAULT.leaseTime().toNanos(), returned::add);

    /** Claims until this instance's demand makes the bucket hot and a decision asks for a batch: its size. */
    private long ask(long now) {
        for (int i = 0; i < 1_000; i++) {
            long claim = bucket.claim(1, SPEC, now, 1);
            if (claim > 0) {
                return claim;
            }
        }
        throw new AssertionError("never asked");
    }

    private static ConsumeResult answer() {
        return ConsumeResult.taken(new long[] {0}, 0, SECOND);
    }

    /** Whether {@code covers} called on another thread waits (parks) instead of answering at once. */
    private boolean waits(AtomicBoolean covered) throws InterruptedException {
        Thread refusal = new Thread(() -> covered.set(bucket.covers(1, SPEC, 10 * SECOND, FOREVER)), "refusal");
        refusal.start();
        while (refusal.isAlive() && refusal.getState() != Thread.State.TIMED_WAITING) {
            Thread.onSpinWait();
        }
        boolean waited = refusal.isAlive();
        if (waited) {
            bucket.accept(0, SPEC, answer(), 10 * SECOND); // lets it go
        }
        refusal.join();
        return waited;
    }

    @Test
    void refusal_afterAnAskThatBroughtAllItAsked_waitsForTheAskInFlight() throws Exception {
        long size = ask(10 * SECOND);
        bucket.accept(size, SPEC, answer(), 10 * SECOND);
        bucket.claim(size + 1, SPEC, 10 * SECOND, 1); // more than the batch: it asks again
        assertThat(bucket.held()).isEqualTo(size);

        AtomicBoolean covered = new AtomicBoolean();
        assertThat(waits(covered)).as("waits for the batch on its way").isTrue();
    }

    @Test
    void refusal_afterAnAskThatBroughtLess_answersAtOnce_theBucketIsDrained() throws Exception {
        long size = ask(10 * SECOND);
        bucket.accept(size - 1, SPEC, answer(), 10 * SECOND);
        bucket.claim(size, SPEC, 10 * SECOND, 1); // more than the batch: it asks again
        assertThat(bucket.held()).isEqualTo(size - 1);

        AtomicBoolean covered = new AtomicBoolean(true);
        assertThat(waits(covered)).as("does not wait for an ask on a drained bucket").isFalse();
        assertThat(covered).as("the batch it holds covers one token").isTrue();
    }
}
