package dev.quota.core.store;

import dev.quota.core.spi.Adjustment;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.spi.Take;
import java.util.List;

/**
 * A store that hands every call to another, after {@link #before}: the base of the test decorators
 * that count, fail, hold or switch calls.
 */
public abstract class ForwardingStore implements QuotaStore {

    protected final QuotaStore delegate;

    protected ForwardingStore(QuotaStore delegate) {
        this.delegate = delegate;
    }

    /** Runs before each store call; may throw to fail it. {@code operation}: consume, add, adjust, peek, reset. */
    protected abstract void before(String operation);

    @Override
    public List<ConsumeResult> tryConsume(List<Take> takes) {
        before("consume");
        return delegate.tryConsume(takes);
    }

    @Override
    public void addTokens(BucketKey key, BucketSpec spec, long tokens) {
        before("add");
        delegate.addTokens(key, spec, tokens);
    }

    @Override
    public void releaseLease(BucketKey key, BucketSpec spec, long lease) {
        before("release");
        delegate.releaseLease(key, spec, lease);
    }

    @Override
    public void adjust(List<Adjustment> adjustments) {
        before("adjust");
        delegate.adjust(adjustments);
    }

    @Override
    public ConsumeResult peek(BucketKey key, BucketSpec spec) {
        before("peek");
        return delegate.peek(key, spec);
    }

    @Override
    public void reset(BucketKey key) {
        before("reset");
        delegate.reset(key);
    }

    @Override
    public String describe() {
        return getClass().getSimpleName() + " over " + delegate.describe();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
