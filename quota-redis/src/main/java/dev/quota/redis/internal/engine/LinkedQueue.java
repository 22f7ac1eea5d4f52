package dev.quota.redis.internal.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A first-in first-out queue of objects that carry their own link ({@link Linked}): any thread
 * adds, one at a time takes (whoever holds the combiner's flag), any thread may look at what
 * waits. Adding makes no node, where a {@code ConcurrentLinkedQueue} makes one per element
 * (what quota-bench scenario 6, allocation per decision, counts): the callers' jobs ({@link Combiner}) and the flights whose reply came ({@link Pipeline})
 * are queued once a decision each.
 *
 * <p>An object is added at most once, ever: its link is the queue's from then on. The last one
 * taken stays the queue's head (what the next one is linked from) until the next is taken.
 *
 * <p>Visibility, what the combiner's wake-ups rely on: an {@link #add} is one atomic swap of the
 * tail, then the link from the one before it (a volatile write). Once {@code add} returned, every
 * thread that looks ({@link #peek}, {@link #isEmpty}, {@link #first}) sees the object, or sees it
 * taken: as a {@code ConcurrentLinkedQueue} would. While another thread's {@code add} is between
 * its swap and its link, what it adds, and what is added behind it, is not seen yet; that thread
 * has not returned from {@code add}, and looks at the queue itself after it does (the combiner's
 * callers try the flag; the client's threads wake a settler).
 */
final class LinkedQueue<T extends LinkedQueue.Linked<T>> {

    /** What a queued object extends: its link to the one queued after it. */
    static class Linked<T> {
        /**
         * The one queued after it, set once, when that one is added; itself once it was taken and
         * the next one taken after it: a taken object keeps nothing queued after it reachable (a
         * dead one promoted to the old generation would otherwise hold every later one alive
         * until an old collection).
         */
        volatile @Nullable Linked<T> next;
    }

    private static final VarHandle TAIL;

    static {
        try {
            TAIL = MethodHandles.lookup().findVarHandle(LinkedQueue.class, "tail", Linked.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The last taken (at first a link of the queue's own): the next to take is its {@code next}. */
    private volatile Linked<T> head = new Linked<>();
    /** The last added; swapped by {@link #add}. */
    @SuppressWarnings("UnusedVariable") // swapped through TAIL
    private volatile Linked<T> tail = head;

    /** Queues {@code element}, which was never queued before (any thread). */
    @SuppressWarnings("unchecked")
    void add(T element) {
        element.next = null;
        Linked<T> before = (Linked<T>) TAIL.getAndSet(this, element);
        before.next = element;
    }

    /** Takes the first queued, or null when none is (seen): one thread at a time. */
    @SuppressWarnings("unchecked")
    @Nullable T poll() {
        Linked<T> taken = head;
        Linked<T> first = taken.next;
        if (first == null) {
            return null;
        }
        head = first;
        taken.next = taken; // nothing links to it now but a looker's stale read: it starts again
        return (T) first;
    }

    /** The first queued, or null (any thread; it may be taken meanwhile). */
    @SuppressWarnings("unchecked")
    @Nullable T peek() {
        return (T) firstLink();
    }

    /** Whether none is queued (any thread). */
    boolean isEmpty() {
        return firstLink() == null;
    }

    /**
     * The first queued that {@code test} accepts, looking from the first in order (any thread: it
     * may meet objects taken meanwhile, never one not yet added); null if none.
     */
    @SuppressWarnings("unchecked")
    @Nullable T first(Predicate<? super T> test) {
        Linked<T> each = firstLink();
        while (each != null) {
            if (test.test((T) each)) {
                return (T) each;
            }
            Linked<T> next = each.next;
            each = next == each ? firstLink() : next; // taken meanwhile: from the first again
        }
        return null;
    }

    /** The head's link: read again when the head read was taken past meanwhile (linked to itself). */
    private @Nullable Linked<T> firstLink() {
        while (true) {
            Linked<T> taken = head;
            Linked<T> first = taken.next;
            if (first != taken) {
                return first;
            }
        }
    }
}
