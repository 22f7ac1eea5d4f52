package dev.quota.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.QuotaStore;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class InMemoryStoreTest extends QuotaStoreContract {

    @Override
    protected QuotaStore newStore(MutableClock clock) {
        return InMemoryStore.builder().clock(clock).build();
    }

    @Test
    void manyDistinctKeys_stayBoundedByMaxBuckets() {
        InMemoryStore bounded = InMemoryStore.builder().clock(clock).maxBuckets(1_000).build();
        BucketSpec spec = new BucketSpec(List.of(new Limit("burst", 5, Refill.greedy(5, Duration.ofSeconds(1)))), 1);

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
        BucketSpec spec = new BucketSpec(List.of(new Limit("burst", 5, Refill.greedy(5, Duration.ofSeconds(1)))), 1);
        for (int i = 0; i < 10; i++) {
            store.tryConsume(new BucketKey("idle" + i), spec, 5);
        }
        clock.advance(Duration.ofSeconds(7));

        store.tryConsume(new BucketKey("new"), spec, 1);

        assertThat(store.size()).isEqualTo(1);
    }
}
