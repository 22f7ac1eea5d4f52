package dev.quota.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The contract with entry processors. */
class JCacheEntryProcessorStoreTest extends JCacheStoreContract {

    @Override
    JCacheStore.Update update() {
        return JCacheStore.Update.ENTRY_PROCESSOR;
    }

    @Test
    void entryProcessors_workWhereValuesAreComparedAsObjects() {
        // the cache compare-and-swap refuses (in-memory format OBJECT): a processor needs no comparison
        try (JCacheStore objects = JCacheStore.builder(grid.cache(1, "object-ep")).update(update()).clock(clock).build()) {
            BucketKey key = freshKey();
            BucketSpec spec = BucketSpec.of(List.of(new Limit("burst", 5, Refill.greedy(5, Duration.ofMinutes(1)))), 1);

            assertThat(objects.tryConsume(key, spec, 2).remaining()).containsExactly(3);
            assertThat(objects.peek(key, spec).remaining()).containsExactly(3);
        }
    }
}
