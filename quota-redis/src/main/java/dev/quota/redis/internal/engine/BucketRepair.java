package dev.quota.redis.internal.engine;

import dev.quota.redis.RedisStore;
import dev.quota.redis.internal.encoding.RepairScript;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a bucket key that holds something other than a bucket state (a list, a hash, or bytes that
 * do not deserialize: {@link dev.quota.core.spi.UnreadableBuckets}, the policy of every store) back into no key, so the bucket starts full instead of failing every
 * request of that customer until the key expires (which a key without TTL never does).
 *
 * <p>A key of the wrong type is deleted; a string is deleted only if it still holds the same
 * unreadable bytes (a compare-and-delete script, {@link RepairScript}), so a bucket another
 * instance has just repaired and used is left alone. Every deletion is logged at WARN. The engine
 * sends the script as a flight of its own ({@link RepairFlight}), never waiting for it while it
 * combines.
 */
public final class BucketRepair {

    private static final Logger log = LoggerFactory.getLogger(RedisStore.class);

    private BucketRepair() {
    }

    /**
     * Whether {@link RepairScript}'s {@code answer} means it deleted {@code key} (logged at
     * WARN): unreadable bytes, or another type than a string (after {@code failure}).
     */
    static boolean deleted(String key, @Nullable Long answer, byte @Nullable [] unreadable,
                           @Nullable Throwable failure) {
        if (answer == null || (answer != RepairScript.DELETED_UNREADABLE && answer < RepairScript.DELETED_TYPE)) {
            return false;
        }
        if (answer == RepairScript.DELETED_UNREADABLE) {
            log.debug("deleted the unreadable bytes at bucket key {}", key); // warned of when read (UnreadableBuckets)
        } else {
            String type = RepairScript.type(answer);
            log.warn("bucket key {} held a Redis {} instead of a bucket state ({}); deleted it, the bucket starts"
                    + " full", key, type, failure == null ? "read" : failure.toString());
        }
        return true;
    }

    static void couldNotDelete(String key, RuntimeException e) {
        log.debug("could not delete unreadable bucket key {}: {}", key, e.toString());
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
