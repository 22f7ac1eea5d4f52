package dev.quota.core.store;

import dev.quota.core.spi.QuotaStore;
import dev.quota.testkit.MutableClock;
import org.jspecify.annotations.Nullable;

/** Two services sharing one in-JVM store, as two parts of one application would. */
class InMemoryMultiInstanceTest extends MultiInstanceContract {

    private @Nullable InMemoryStore shared;

    @Override
    protected QuotaStore newInstanceStore(int instance, MutableClock clock) {
        InMemoryStore store = shared;
        if (store == null) {
            store = InMemoryStore.builder().clock(clock).build();
            shared = store;
        }
        InMemoryStore buckets = store;
        // the services share the buckets: closing one must not empty them for the other
        return new ForwardingStore(buckets) {
            @Override
            protected void before(String operation) {
            }

            @Override
            public void close() {
            }
        };
    }
}
