package dev.quota.redis;

import dev.quota.core.spi.BucketKey;
import io.github.bucket4j.distributed.serialization.InternalSerializationHelper;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RScript;
import org.redisson.api.RType;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisConnectionException;
import org.redisson.client.RedisNodeNotFoundException;
import org.redisson.client.RedisReadonlyException;
import org.redisson.client.RedisRetryException;
import org.redisson.client.RedisTimeoutException;
import org.redisson.client.codec.ByteArrayCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a bucket key that holds something other than a bucket state (a list, a hash, bytes that
 * do not deserialize) back into no key, so the bucket starts full instead of failing every
 * request of that customer until the key expires (which a key without TTL never does).
 *
 * <p>Called only after an operation failed while Redis answered. It looks at the key: a key of
 * the wrong type is deleted; a string is deleted only if it does not deserialize and still holds
 * the same bytes (a compare-and-delete script), so a bucket another instance has just repaired and
 * used is left alone. A failure with a readable bucket state is not corruption: nothing is touched.
 */
final class BucketRepair {

    private static final Logger log = LoggerFactory.getLogger(RedisStore.class);
    private static final String DELETE_IF_UNCHANGED = "local kind = redis.call('TYPE', KEYS[1])['ok']\n"
            + "if kind == 'none' then return 1 end\n"
            + "if kind ~= 'string' then redis.call('DEL', KEYS[1]) return 2 end\n"
            + "if #ARGV > 0 and redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) return 3 end\n"
            + "return 0";

    private final RedissonClient client;

    BucketRepair(RedissonClient client) {
        this.client = client;
    }

    /**
     * Whether {@code key} held something that is not a bucket state and is now gone (or was gone
     * already), after {@code failure}: worth one more try. False when Redis could not be reached or
     * the key holds a valid bucket.
     */
    boolean removedCorrupt(BucketKey key, RuntimeException failure) {
        if (isUnreachable(failure)) {
            return false;
        }
        try {
            RType type = client.getKeys().getType(key.value());
            if (type == null) {
                return true;
            }
            if (type != RType.OBJECT) {
                long result = deleteIfUnchanged(key, null);
                log.warn("bucket key {} held a Redis {} instead of a bucket state ({}); deleted it, the bucket"
                        + " starts full", key, type, failure.toString());
                return result != 0;
            }
            byte[] bytes = client.<byte[]>getBucket(key.value(), ByteArrayCodec.INSTANCE).get();
            if (bytes == null) {
                return true;
            }
            if (deserializes(bytes)) {
                return false;
            }
            long result = deleteIfUnchanged(key, bytes);
            log.warn("bucket key {} held {} bytes that are not a bucket state ({}); deleted it, the bucket starts"
                    + " full", key, bytes.length, failure.toString());
            return result != 0;
        } catch (RuntimeException e) {
            log.debug("could not inspect bucket key {}: {}", key, e.toString());
            return false;
        }
    }

    private long deleteIfUnchanged(BucketKey key, byte @Nullable [] expected) {
        Object[] args = expected == null ? new Object[0] : new Object[] {expected};
        Long result = client.getScript(ByteArrayCodec.INSTANCE).eval(key.value(), RScript.Mode.READ_WRITE,
                DELETE_IF_UNCHANGED, RScript.ReturnType.LONG, List.of(key.value()), args);
        return result == null ? 0 : result;
    }

    private static boolean deserializes(byte[] bytes) {
        try {
            InternalSerializationHelper.deserializeState(bytes);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Whether the failure means Redis did not answer (down, slow, failing over), not a bad value. */
    static boolean isUnreachable(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof RedisConnectionException || t instanceof RedisTimeoutException
                    || t instanceof RedisRetryException || t instanceof RedisNodeNotFoundException
                    || t instanceof RedisReadonlyException || t instanceof io.github.bucket4j.TimeoutException
                    || t instanceof java.util.concurrent.TimeoutException
                    || t instanceof java.io.IOException) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }
}
