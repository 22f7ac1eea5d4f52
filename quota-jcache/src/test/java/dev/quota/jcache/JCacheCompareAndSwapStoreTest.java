package dev.quota.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.Limit;
import dev.quota.core.QuotaStoreException;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import java.time.Duration;
import java.util.List;
import javax.cache.Cache;
import org.junit.jupiter.api.Test;

/** The contract in compare-and-swap mode, and what that mode needs from the provider. */
class JCacheCompareAndSwapStoreTest extends JCacheStoreContract {

    @Override
    JCacheStore.Update update() {
        return JCacheStore.Update.COMPARE_AND_SWAP;
    }

    @Test
    void build_onACacheThatComparesValuesAsObjects_failsAndSaysWhy() {
        // Hazelcast's in-memory format OBJECT compares byte arrays with equals(): by reference
        Cache<String, byte[]> objects = grid.cache(0, "object-cas");

        assertThatThrownBy(() -> JCacheStore.builder(objects).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cache 'object-cas' (com.hazelcast.cache.impl.HazelcastServerCachingProvider)")
                .hasMessageContaining("does not compare byte arrays by content")
                .hasMessageContaining("Use Update.ENTRY_PROCESSOR");
    }

    @Test
    void aChangeThatKeepsLosingRaces_failsAfterTheRetryBudgetOfLostRaces_andTakesNothing() {
        // past build()'s check, on a cache where every replace loses: each attempt is a lost race
        Cache<String, byte[]> objects = grid.cache(1, "object-races");
        var time = dev.quota.core.internal.Bandwidths.timeMeter(clock);
        JCacheStore racing = new JCacheStore(objects, update(), new CasBuckets(objects, new JCacheWriter(objects),
                CacheLifetime.of(objects, false), time, 20, 0), "racing", LeaseHolders.NONE);
        BucketKey key = freshKey();
        BucketSpec spec = BucketSpec.of(List.of(new Limit("burst", 5, Refill.greedy(5, Duration.ofMinutes(1)))), 1);
        assertThat(racing.tryConsume(key, spec, 1).tokensTaken()).as("a new bucket is created, no race").isTrue();

        assertThatThrownBy(() -> racing.tryConsume(key, spec, 1)).isInstanceOf(QuotaStoreException.class)
                .hasMessageContaining("entry " + key + " in cache 'object-races': lost 21 compare-and-swap races,"
                        + " past the retry budget of 20 lost races");

        assertThat(racing.peek(key, spec).remaining()).containsExactly(4);
    }

    @Test
    void describe_saysThisJvmsDecisionsOfAnEntryAreMerged() {
        assertThat(store.describe()).contains("compare-and-swap, ").endsWith(", this JVM's decisions of an entry merged"
                + ", in-flight leases held by this grid member");
    }
}
