package dev.quota.core.spi;

import io.github.bucket4j.distributed.remote.RemoteBucketState;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one policy for stored bytes that are not a bucket state (written by something else, or
 * mangled): the bucket counts as none, so it starts full, instead of failing every request of that
 * customer until the entry expires (which an entry without expiry never does); the store deletes
 * the bytes if they are still unchanged (a bucket another instance has just repaired and used is
 * left alone); and a WARN names the store and the key. Every store reads stored bytes through
 * {@link #read}.
 */
public final class UnreadableBuckets {

    private static final Logger log = LoggerFactory.getLogger(UnreadableBuckets.class);

    private UnreadableBuckets() {
    }

    /**
     * The state {@code bytes} encode; null when there are none, or when they are not a bucket
     * state, in which case {@code deleteIfUnchanged} is given them to delete and a WARN is logged.
     *
     * @param store             the store, for the log: {@code redis}, {@code cache 'quota'}
     * @param key               the bucket's key
     * @param bytes             what the store holds at the key, null for nothing
     * @param deleteIfUnchanged deletes the key if it still holds the given bytes (may be asynchronous)
     * @return the state, or null for no bucket
     */
    public static @Nullable RemoteBucketState read(String store, String key, byte @Nullable [] bytes,
                                                   Consumer<byte[]> deleteIfUnchanged) {
        return read(store, key, bytes, BucketMath::deserialize, deleteIfUnchanged);
    }

    /**
     * As {@link #read(String, String, byte[], Consumer)}, for a store whose stored bytes hold more
     * than one state (a JCache entry holding all of a customer's buckets): what {@code decode} makes
     * of them, or null as there.
     *
     * @param <T>               what the bytes hold
     * @param store             the store, for the log
     * @param key               the key the bytes are stored at
     * @param bytes             what the store holds at the key, null for nothing
     * @param decode            reads the bytes; throws a {@link RuntimeException} when they are not
     *                          what the store writes
     * @param deleteIfUnchanged deletes the key if it still holds the given bytes
     * @return what the bytes hold, or null for none
     */
    public static <T> @Nullable T read(String store, String key, byte @Nullable [] bytes,
                                       Function<byte[], T> decode, Consumer<byte[]> deleteIfUnchanged) {
        if (bytes == null) {
            return null;
        }
        try {
            return decode.apply(bytes);
        } catch (RuntimeException e) {
            log.warn("{} holds {} bytes at {} that are not a bucket state ({}); deleting them, the bucket starts"
                    + " full", store, bytes.length, key, e.toString());
            deleteIfUnchanged.accept(bytes);
            return null;
        }
    }
}
