package dev.quota.redis.internal.encoding;

import java.util.List;

/**
 * The compare-and-delete script that turns a bucket key holding something other than a bucket
 * state back into no key: a key of another type than a string is deleted, a string only if it
 * still holds the unreadable bytes it was read with, so a bucket another instance has just
 * repaired and used is left alone. The engine decides when to send it and logs what it deleted;
 * the transport sends it.
 */
public final class RepairScript {

    /**
     * Deletes KEYS[1] if it holds another type than a string, or the unreadable bytes ARGV[1].
     * Answers 0 when it kept the key, 1 when there is none, {@value #DELETED_UNREADABLE} when it
     * deleted unreadable bytes, and {@value #DELETED_TYPE} {@code +} the type's place in
     * {@link #type} when it deleted a key of another type.
     */
    public static final String TEXT = """
            local kind = redis.call('TYPE', KEYS[1])['ok']
            if kind == 'none' then return 1 end
            if kind ~= 'string' then
              redis.call('DEL', KEYS[1])
              local types = {list = 1, set = 2, zset = 3, hash = 4, stream = 5}
              return 10 + (types[kind] or 0)
            end
            if #ARGV > 0 and redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) return 3 end
            return 0""";
    /** {@link #TEXT}'s answer when it deleted unreadable bytes. */
    public static final long DELETED_UNREADABLE = 3;
    /** {@link #TEXT}'s least answer when it deleted a key of another type. */
    public static final long DELETED_TYPE = 10;
    /** The types {@link #TEXT} names, by their place. */
    private static final List<String> TYPES = List.of("OTHER", "LIST", "SET", "ZSET", "HASH", "STREAM");

    private RepairScript() {
    }

    /** The type of the key {@link #TEXT} deleted, from its {@code answer} (at least {@link #DELETED_TYPE}). */
    public static String type(long answer) {
        return TYPES.get((int) Math.min(answer - DELETED_TYPE, TYPES.size() - 1));
    }
}
