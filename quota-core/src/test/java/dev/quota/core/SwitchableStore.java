package dev.quota.core;

import dev.quota.core.store.ForwardingStore;
import dev.quota.core.store.InMemoryStore;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicInteger;

/** An in-JVM store that counts its calls and, while {@link #failing} is set, fails every call as an established outage. */
public final class SwitchableStore extends ForwardingStore {

    final AtomicInteger calls = new AtomicInteger();
    volatile boolean failing;

    public SwitchableStore(Clock clock) {
        super(InMemoryStore.builder().clock(clock).build());
    }

    @Override
    protected void before(String operation) {
        calls.incrementAndGet();
        if (failing) {
            throw QuotaStoreException.outage("store down (test)");
        }
    }
}
