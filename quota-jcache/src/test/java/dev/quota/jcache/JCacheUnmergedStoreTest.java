package dev.quota.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The contract in compare-and-swap mode with {@link JCacheStoreBuilder#mergeDecisions} off: each
 * decision a change of its own, the plain path the merged one is measured against.
 */
class JCacheUnmergedStoreTest extends JCacheStoreContract {

    @Override
    JCacheStore.Update update() {
        return JCacheStore.Update.COMPARE_AND_SWAP;
    }

    @Override
    boolean mergeDecisions() {
        return false;
    }

    @Test
    void describe_saysNothingIsMerged() {
        assertThat(store.describe()).contains("compare-and-swap, ").doesNotContain("merged");
    }
}
