package dev.quota.core.internal;

import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A small table of a function's recent answers, for values worked out on every request from a
 * handful of inputs that repeat (a client address parsed from its text, its group formatted from
 * the address): a hit costs the key's hash and one {@code equals}, and allocates nothing.
 *
 * <p>Direct-mapped: each key has one slot, and a key that maps to an occupied slot replaces what is
 * there, so the table never holds more than {@code slots} answers and a collision costs only a
 * recomputation. Racy by design: an entry is immutable (final fields, safely published), a lost
 * write is computed again, and every reader sees either a whole entry or none. Only for functions
 * whose answer depends on the key alone.
 *
 * @param <K> the input, with {@code equals} and {@code hashCode} by value
 * @param <V> the answer
 */
public final class Memo<K, V> {

    private final Function<K, @Nullable V> function;
    private final @Nullable Entry<?, ?>[] table;
    private final int mask;

    /**
     * A table of {@code slots} answers of {@code function}.
     *
     * @throws IllegalArgumentException if slots is not a power of two from 1 to 2^16
     */
    public Memo(int slots, Function<K, @Nullable V> function) {
        if (slots < 1 || slots > 1 << 16 || Integer.bitCount(slots) != 1) {
            throw new IllegalArgumentException("slots must be a power of two from 1 to 65536 but was " + slots);
        }
        this.function = function;
        this.table = new Entry<?, ?>[slots];
        this.mask = slots - 1;
    }

    /** {@code function.apply(key)}, from the table when it was the last key of its slot; a null answer too. */
    @SuppressWarnings("unchecked")
    public @Nullable V get(K key) {
        int h = key.hashCode();
        int slot = (h ^ (h >>> 16)) & mask;
        Entry<?, ?> entry = table[slot];
        if (entry != null && entry.key.equals(key)) {
            return (V) entry.value;
        }
        @Nullable V value = function.apply(key);
        table[slot] = new Entry<>(key, value);
        return value;
    }

    private static final class Entry<K, V> {
        final K key;
        final @Nullable V value;

        Entry(K key, @Nullable V value) {
            this.key = key;
            this.value = value;
        }
    }
}
