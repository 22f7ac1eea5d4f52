package dev.quota.core.internal;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * One buffer per thread, reused by every call on that thread instead of made per call: the one
 * place every per-thread scratch buffer of the library comes from ({@link ListsOf}'s array, the
 * layout's list of draws, {@link StateWire}'s sink and source, {@link Hashes}' digest).
 *
 * <p>The rule a buffer needs is that nobody else uses it between {@link #take()} and
 * {@link #giveBack}: a method that gathers into it must not call one that gathers into it too.
 * That rule is checked here, not left to comments: a take while the thread's buffer is taken
 * throws {@link IllegalStateException}, instead of handing one buffer to two users who would
 * overwrite each other's elements. Every use gives the buffer back in a {@code finally}, so a
 * throw between take and give-back does not leave the thread's buffer taken for good.
 *
 * <p>Thread-confined: each thread has its own buffer and flag, so nothing here is shared and
 * nothing locks.
 *
 * @param <T> the buffer's type
 */
public final class Scratch<T> {

    private final String name;
    private final ThreadLocal<Slot<T>> slots;

    private Scratch(String name, Supplier<T> make) {
        this.name = name;
        this.slots = ThreadLocal.withInitial(() -> new Slot<>(Objects.requireNonNull(make.get(), name)));
    }

    /**
     * A buffer per thread, made by {@code make} the first time a thread takes it.
     *
     * @param name what the buffer is, for the message of a misuse
     */
    public static <T> Scratch<T> perThread(String name, Supplier<T> make) {
        return new Scratch<>(name, make);
    }

    /**
     * This thread's buffer, as the previous user left it, taken until {@link #giveBack}.
     *
     * @throws IllegalStateException if this thread holds it already (a re-entrant use)
     */
    public T take() {
        Slot<T> slot = slots.get();
        if (slot.taken) {
            throw new IllegalStateException(name + " is taken again on thread " + Thread.currentThread().getName()
                    + " before it was given back: a re-entrant use of a per-thread buffer");
        }
        slot.taken = true;
        return slot.buffer;
    }

    /**
     * Gives {@code buffer} back when it is this thread's buffer; anything else (an array made
     * because the buffer was too small) is ignored, and so is a second give-back, so a
     * {@code finally} may give back what a normal path gave back already.
     */
    public void giveBack(T buffer) {
        Slot<T> slot = slots.get();
        if (slot.buffer == buffer) {
            slot.taken = false;
        }
    }

    /** Whether this thread holds its buffer now (tests). */
    public boolean taken() {
        return slots.get().taken;
    }

    /** A thread's buffer and whether it is taken; touched by that thread only. */
    private static final class Slot<T> {
        final T buffer;
        boolean taken;

        Slot(T buffer) {
            this.buffer = buffer;
        }
    }
}
