package dev.quota.jaxrs;

import dev.quota.core.QuotaStoreException;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.QuotaStore;

/** A store that is always down, like Redis during a failover. */
final class FailingStore implements QuotaStore {

    @Override
    public ConsumeResult tryConsume(BucketKey key, BucketSpec spec, long tokens) {
        throw new QuotaStoreException("connection refused");
    }

    @Override
    public void addTokens(BucketKey key, BucketSpec spec, long tokens) {
        throw new QuotaStoreException("connection refused");
    }

    @Override
    public ConsumeResult peek(BucketKey key, BucketSpec spec) {
        throw new QuotaStoreException("connection refused");
    }

    @Override
    public void reset(BucketKey key) {
        throw new QuotaStoreException("connection refused");
    }

    @Override
    public String describe() {
        return "always failing";
    }

    @Override
    public void close() {
    }
}
