package dev.quota.jcache;

import dev.quota.core.spi.QuotaStore;
import dev.quota.core.store.MultiInstanceContract;
import dev.quota.testkit.MutableClock;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two instances of a service, each on its own grid member with its own store, deciding for the
 * same customers at once, in both modes, with the store's defaults (and compare-and-swap's merging off) (contention is never an outage:
 * the retry budget counts lost races). One of the two always reaches the customer's buckets on the
 * other member.
 */
class MultiMemberTest {

    @RegisterExtension
    static HazelcastGrid grid = HazelcastGrid.shared();

    @Nested
    class CompareAndSwap extends MultiInstanceContract {
        @Override
        protected QuotaStore newInstanceStore(int member, MutableClock clock) {
            return store(member, JCacheStore.Update.COMPARE_AND_SWAP, clock);
        }
    }

    /** Compare-and-swap with {@link JCacheStoreBuilder#mergeDecisions} off: a change per decision. */
    @Nested
    class CompareAndSwapUnmerged extends MultiInstanceContract {
        @Override
        protected QuotaStore newInstanceStore(int member, MutableClock clock) {
            return JCacheStore.builder(grid.cache(member, "multi-unmerged")).clock(clock).mergeDecisions(false).build();
        }
    }

    @Nested
    class EntryProcessor extends MultiInstanceContract {
        @Override
        protected QuotaStore newInstanceStore(int member, MutableClock clock) {
            return store(member, JCacheStore.Update.ENTRY_PROCESSOR, clock);
        }
    }

    /** A store on {@code member}'s own view of the mode's cache, with the defaults. */
    private static QuotaStore store(int member, JCacheStore.Update mode, MutableClock clock) {
        return JCacheStore.builder(grid.cache(member, "multi-" + mode)).update(mode).clock(clock).build();
    }
}
