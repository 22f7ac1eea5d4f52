package dev.quota.core;

import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.store.InMemoryStore;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicInteger;

/** An in-JVM store that counts its calls and fails every call while {@link #failing} is set. */
public final class SwitchableStore implements QuotaStore {

    private final InMemoryStore delegate;
    final AtomicInteger calls = new AtomicInteger();
    volatile boolean failing;

    public SwitchableStore(Clock clock) {
        this.delegate = InMemoryStore.builder().clock(clock).build();
    }

    private void enter() {
        calls.incrementAndGet();
        if (failing) {
            throw new QuotaStoreException("store down (test)");
        }
    }

    @Override
    public ConsumeResult tryConsume(BucketKey key, BucketSpec spec, long tokens) {
        enter();
        return delegate.tryConsume(key, spec, tokens);
    }

    @Override
    public void addTokens(BucketKey key, BucketSpec spec, long tokens) {
        enter();
        delegate.addTokens(key, spec, tokens);
    }

    @Override
    public ConsumeResult peek(BucketKey key, BucketSpec spec) {
        enter();
        return delegate.peek(key, spec);
    }

    @Override
    public void reset(BucketKey key) {
        enter();
        delegate.reset(key);
    }

    @Override
    public String describe() {
        return "switchable " + delegate.describe();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
