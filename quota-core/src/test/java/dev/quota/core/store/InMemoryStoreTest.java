package dev.quota.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.spi.Take;
import dev.quota.testkit.MutableClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class InMemoryStoreTest extends QuotaStoreContract {

    @Override
    protected QuotaStore newStore(MutableClock clock) {
        return InMemoryStore.builder().clock(clock).build();
    }

    @Test
    void manyDistinctKeys_stayBoundedByMaxBuckets() {
        InMemoryStore bounded = InMemoryStore.builder().clock(clock).maxBuckets(1_000).build();
        BucketSpec spec = BucketSpec.of(List.of(new Limit("burst", 5, Refill.greedy(5, Duration.ofSeconds(1)))), 1);

        for (int i = 0; i < 50_000; i++) {
            bounded.tryConsume(new BucketKey("k" + i), spec, 1);
        }

        assertThat(bounded.size()).isLessThanOrEqualTo(1_000);
        assertThat(bounded.peek(new BucketKey("k49999"), spec).remaining()[0])
                .as("the newest bucket is kept, with what it took").isEqualTo(4);
    }

    @Test
    void idleBucket_isDroppedAfterRefillPlusMargin() {
        InMemoryStore store = InMemoryStore.builder().clock(clock).maxBuckets(10).expiryMargin(Duration.ofSeconds(5)).build();
        BucketSpec spec = BucketSpec.of(List.of(new Limit("burst", 5, Refill.greedy(5, Duration.ofSeconds(1)))), 1);
        for (int i = 0; i < 10; i++) {
            store.tryConsume(new BucketKey("idle" + i), spec, 5);
        }
        clock.advance(Duration.ofSeconds(7));

        store.tryConsume(new BucketKey("new"), spec, 1);

        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    void consume_whoseBucketWasDroppedBetweenLookupAndLock_countsInTheBucketThatReplacedIt() throws Exception {
        BucketCreationGate gate = new BucketCreationGate(clock);
        InMemoryStore store = InMemoryStore.builder().clock(gate).build();
        BucketSpec spec = BucketSpec.of(List.of(new Limit("hourly", 2, Refill.greedy(2, Duration.ofHours(1)))), 1);
        BucketKey a = new BucketKey("a");
        BucketKey b = new BucketKey("b");
        store.addTokens(a, spec, 1); // "a" exists and is full; the consume below creates only "b"

        // the consume looks up "a", then stops while "b" is created: "a" is looked up, not yet locked
        CompletableFuture<List<ConsumeResult>> racing = new CompletableFuture<>();
        Thread consumer = new Thread(() -> racing.complete(store.tryConsume(List.of(Take.of(a, spec, 1),
                Take.of(b, spec, 1)))));
        gate.stop(consumer);
        consumer.start();
        assertThat(gate.stopped.await(10, TimeUnit.SECONDS)).isTrue();
        store.reset(a); // the cache drops "a" (as expiry or size eviction would)
        assertThat(store.tryConsume(a, spec, 1).tokensTaken()).isTrue(); // a new "a": 1 of 2 left
        gate.release.countDown();

        assertThat(racing.get(10, TimeUnit.SECONDS)).allSatisfy(r -> assertThat(r.tokensTaken()).isTrue());
        assertThat(store.peek(a, spec).remaining()).as("both consumes counted in the bucket \"a\" maps to")
                .containsExactly(0);
    }

    /**
     * A clock that stops one thread when it reads the time to create a bucket, until released: the
     * moment between looking up the buckets of a consume and locking them.
     */
    private static final class BucketCreationGate extends Clock {
        private final Clock delegate;
        final CountDownLatch stopped = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        private volatile Thread stopping;

        BucketCreationGate(Clock delegate) {
            this.delegate = delegate;
        }

        void stop(Thread thread) {
            stopping = thread;
        }

        @Override
        public Instant instant() {
            if (Thread.currentThread() == stopping && creatingBucket()) {
                stopping = null;
                stopped.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return delegate.instant();
        }

        private static boolean creatingBucket() {
            return StackWalker.getInstance().walk(frames -> frames.anyMatch(
                    f -> f.getClassName().equals(InMemoryStore.class.getName()) && f.getMethodName().equals("newBucket")));
        }

        @Override
        public ZoneId getZone() {
            return delegate.getZone();
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException();
        }
    }
}
