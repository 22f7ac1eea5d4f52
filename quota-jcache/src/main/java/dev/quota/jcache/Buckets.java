package dev.quota.jcache;

import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.Take;

/** How a {@link JCacheStore} changes one bucket atomically: one implementation per mode. */
interface Buckets {

    /** Consumes one take as {@link dev.quota.core.spi.PerBucketStore#consumeOne} says: its tokens, or its refusal tokens, or nothing. */
    ConsumeResult consume(Take take);

    /** Gives tokens back to every limit of the bucket, never above capacity. */
    void addTokens(BucketKey key, BucketSpec spec, long tokens);
}
