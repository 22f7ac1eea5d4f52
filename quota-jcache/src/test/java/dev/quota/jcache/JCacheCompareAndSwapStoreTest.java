package dev.quota.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import javax.cache.Cache;
import org.junit.jupiter.api.Test;

/** The contract in compare-and-swap mode, and what that mode needs from the provider. */
class JCacheCompareAndSwapStoreTest extends JCacheStoreContract {

    @Override
    JCacheStore.Mode mode() {
        return JCacheStore.Mode.COMPARE_AND_SWAP;
    }

    @Test
    void build_onACacheThatComparesValuesAsObjects_failsAndSaysWhy() {
        // Hazelcast's in-memory format OBJECT compares byte arrays with equals(): by reference
        Cache<String, byte[]> objects = grid.cache(0, "object-cas");

        assertThatThrownBy(() -> JCacheStore.builder(objects).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cache 'object-cas' (com.hazelcast.cache.impl.HazelcastServerCachingProvider)")
                .hasMessageContaining("does not compare byte arrays by content")
                .hasMessageContaining("Use Mode.ENTRY_PROCESSOR");
    }

    @Test
    void bytesThatAreNoBucket_areRemoved_andTheBucketStartsFull() {
        Cache<String, byte[]> cache = grid.cache(1, "contract-" + mode());
        BucketKey key = freshKey();
        BucketSpec spec = new BucketSpec(List.of(new Limit("burst", 5, Refill.greedy(5, Duration.ofMinutes(1)))), 1);
        cache.put(key.value(), "not a bucket".getBytes(StandardCharsets.UTF_8));

        assertThat(store.peek(key, spec).remaining()).containsExactly(5);
        assertThat(store.tryConsume(key, spec, 2).remaining()).containsExactly(3);
        assertThat(store.peek(key, spec).remaining()).containsExactly(3);
    }
}
