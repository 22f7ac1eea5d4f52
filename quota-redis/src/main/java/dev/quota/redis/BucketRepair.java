package dev.quota.redis;

import dev.quota.core.spi.BucketKey;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RScript;
import org.redisson.api.RType;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a bucket key that holds something other than a bucket state (a list, a hash, bytes that
 * do not deserialize) back into no key, so the bucket starts full instead of failing every
 * request of that customer until the key expires (which a key without TTL never does).
 *
 * <p>A key of the wrong type is deleted; a string is deleted only if it still holds the same
 * unreadable bytes (a compare-and-delete script), so a bucket another instance has just repaired and
 * used is left alone. Every deletion is logged at WARN.
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

    /** Deletes {@code key} if it still holds {@code bytes}, which are not a bucket state. */
    void deleteCorrupt(BucketKey key, byte[] bytes, RuntimeException cause) {
        try {
            deleteIfUnchanged(key.value(), bytes);
            log.warn("bucket key {} held {} bytes that are not a bucket state ({}); deleted it, the bucket starts"
                    + " full", key, bytes.length, cause.toString());
        } catch (RuntimeException e) {
            log.debug("could not delete corrupt bucket key {}: {}", key, e.toString());
        }
    }

    /**
     * After a command failed with Redis' WRONGTYPE reply, deletes every key of {@code keys} that
     * holds a type other than a string. True when one was deleted: worth computing again.
     */
    boolean removedCorrupt(List<String> keys, RuntimeException failure) {
        if (!isWrongType(failure)) {
            return false; // only Redis' WRONGTYPE reply means a key holds another type: anything else is no repair's business
        }
        boolean removed = false;
        for (String key : keys) {
            try {
                RType type = client.getKeys().getType(key);
                if (type != null && type != RType.OBJECT) {
                    removed |= deleteIfUnchanged(key, null) != 0;
                    log.warn("bucket key {} held a Redis {} instead of a bucket state ({}); deleted it, the bucket"
                            + " starts full", key, type, failure.toString());
                }
            } catch (RuntimeException e) {
                log.debug("could not inspect bucket key {}: {}", key, e.toString());
                return false;
            }
        }
        return removed;
    }

    private long deleteIfUnchanged(String key, byte @Nullable [] expected) {
        Object[] args = expected == null ? new Object[0] : new Object[] {expected};
        Long result = client.getScript(ByteArrayCodec.INSTANCE).eval(key, RScript.Mode.READ_WRITE,
                DELETE_IF_UNCHANGED, RScript.ReturnType.LONG, List.of(key), args);
        return result == null ? 0 : result;
    }

    /** Whether Redis answered that a key holds another type than a string (a list, a hash, ...). */
    static boolean isWrongType(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String message = t.getMessage();
            if (message != null && message.contains("WRONGTYPE")) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

}
