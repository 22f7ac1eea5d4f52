package dev.quota.redis.internal.engine;

import dev.quota.redis.RedisStore;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a bucket key that holds something other than a bucket state (a list, a hash, or bytes that
 * do not deserialize: {@link dev.quota.core.spi.UnreadableBuckets}, the policy of every store) back into no key, so the bucket starts full instead of failing every
 * request of that customer until the key expires (which a key without TTL never does).
 *
 * <p>A key of the wrong type is deleted; a string is deleted only if it still holds the same
 * unreadable bytes (a compare-and-delete script, {@link #DELETE_IF_UNCHANGED}), so a bucket another
 * instance has just repaired and used is left alone. Every deletion is logged at WARN. The engine
 * sends the script as a flight of its own ({@link RepairFlight}), never waiting for it while it
 * combines.
 */
public final class BucketRepair {

    private static final Logger log = LoggerFactory.getLogger(RedisStore.class);
    /**
     * Deletes KEYS[1] if it holds another type than a string, or the unreadable bytes ARGV[1].
     * Answers 0 when it kept the key, 1 when there is none, 3 when it deleted unreadable bytes,
     * and {@code 10 +} the type's place in {@link #TYPES} when it deleted a key of another type.
     */
    public static final String DELETE_IF_UNCHANGED = """
            local kind = redis.call('TYPE', KEYS[1])['ok']
            if kind == 'none' then return 1 end
            if kind ~= 'string' then
              redis.call('DEL', KEYS[1])
              local types = {list = 1, set = 2, zset = 3, hash = 4, stream = 5}
              return 10 + (types[kind] or 0)
            end
            if #ARGV > 0 and redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) return 3 end
            return 0""";
    /** The types {@link #DELETE_IF_UNCHANGED} names, by their place. */
    private static final List<String> TYPES = List.of("OTHER", "LIST", "SET", "ZSET", "HASH", "STREAM");
    /** {@link #DELETE_IF_UNCHANGED}'s answer when it deleted unreadable bytes. */
    static final long DELETED_UNREADABLE = 3;

    private BucketRepair() {
    }

    /**
     * Whether {@link #DELETE_IF_UNCHANGED}'s {@code answer} means it deleted {@code key} (logged at
     * WARN): unreadable bytes, or another type than a string (after {@code failure}).
     */
    static boolean deleted(String key, @Nullable Long answer, byte @Nullable [] unreadable,
                           @Nullable Throwable failure) {
        if (answer == null || (answer != DELETED_UNREADABLE && answer < 10)) {
            return false;
        }
        if (answer == DELETED_UNREADABLE) {
            log.debug("deleted the unreadable bytes at bucket key {}", key); // warned of when read (UnreadableBuckets)
        } else {
            String type = TYPES.get((int) Math.min(answer - 10, TYPES.size() - 1));
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
