package dev.quota.jcache;

import dev.quota.core.spi.Adjustment;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.Take;
import java.util.List;

/** How a {@link JCacheStore} changes the buckets of one entry ({@link BucketEntry}) atomically: one implementation per mode. */
interface Buckets {

    /** Consumes the takes of one entry ({@link BucketEntry#groups}) atomically, as {@link dev.quota.core.spi.QuotaStore#tryConsume} says. */
    List<ConsumeResult> consume(List<Take> group);

    /** Adjusts buckets of one entry atomically, each as {@link dev.quota.core.spi.QuotaStore#adjust} says. */
    void adjust(List<Adjustment> group);

    /** The bucket as it stands, without taking anything: one read, computed in this JVM. */
    ConsumeResult peek(BucketKey key, BucketSpec spec);

    /** Deletes the bucket: its next use starts full. */
    void reset(BucketKey key);
}
