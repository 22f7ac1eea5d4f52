package dev.quota.core.spi;

/**
 * Where buckets live. One implementation per backend: Redis (shared by every instance) and the
 * JVM (one instance, or the fallback while Redis is unavailable).
 *
 * <p>Every operation is atomic per key across all clients of the store. Failures are thrown as
 * {@link dev.quota.core.QuotaStoreException}; the caller's failure policy decides what the
 * HTTP client sees. A bucket that does not exist yet is created full.
 */
public interface QuotaStore extends AutoCloseable {

    /**
     * Takes {@code tokens} from every limit of the bucket, or nothing if any limit lacks them.
     *
     * @throws dev.quota.core.QuotaStoreException if the store cannot answer
     */
    ConsumeResult tryConsume(BucketKey key, BucketSpec spec, long tokens);

    /**
     * Gives {@code tokens} back to every limit of the bucket, never above capacity. Used when a
     * later limit rejected the request these tokens were taken for.
     *
     * @throws dev.quota.core.QuotaStoreException if the store cannot answer
     */
    void addTokens(BucketKey key, BucketSpec spec, long tokens);

    /**
     * Reads the bucket without taking anything ({@code consumed} is true).
     *
     * @throws dev.quota.core.QuotaStoreException if the store cannot answer
     */
    ConsumeResult peek(BucketKey key, BucketSpec spec);

    /**
     * Deletes the bucket: its next use starts full.
     *
     * @throws dev.quota.core.QuotaStoreException if the store cannot answer
     */
    void reset(BucketKey key);

    /** A one-line description for logs and start-up banners, e.g. {@code redis standalone 127.0.0.1:6379}. */
    String describe();

    /** Releases connections and threads the store owns; does not shut down a client it was given. */
    @Override
    void close();
}
