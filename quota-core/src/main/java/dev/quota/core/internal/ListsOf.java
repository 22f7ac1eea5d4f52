package dev.quota.core.internal;

import java.util.Arrays;
import java.util.List;

/**
 * Immutable lists of a few elements built without the copies {@link List#copyOf} and
 * {@link List#of(Object[])} make: a decision's statuses and takes, built per decision.
 *
 * <p>{@code List.of(a, b, c)} keeps the one array its arguments came in (a list of one or two holds
 * them in fields), and {@link List#copyOf} returns such a list as it is. Collected in an
 * {@code ArrayList} and copied, six statuses cost the list, its array, the copy {@code toArray}
 * makes and the immutable list's own copy, where these lists cost the list alone. The elements
 * are gathered in a per-thread array ({@link #gather}, a {@link Scratch}: a re-entrant gather
 * throws), cleared and given back by {@link #first}, so nothing else is made. A caller that may
 * throw between the two gives the array back in a {@code finally} ({@link #giveBack}).
 */
public final class ListsOf {

    /** Past this many elements a list is copied as usual: no decision has that many buckets or limits. */
    private static final int MOST = 10;

    private static final Scratch<Object[]> SCRATCH = Scratch.perThread("the thread's array of list elements",
            () -> new Object[MOST]);

    private ListsOf() {
    }

    /**
     * An array to gather {@code n} elements in before {@link #first}: this thread's, taken until
     * {@link #first} or {@link #giveBack}, when they fit; else a new one.
     *
     * @throws IllegalStateException if this thread's array is taken already (a re-entrant gather)
     */
    public static Object[] gather(int n) {
        return n <= MOST ? SCRATCH.take() : new Object[n];
    }

    /** Gives back an array {@link #gather} answered, if it is this thread's and still taken; else does nothing. */
    public static void giveBack(Object[] elements) {
        SCRATCH.giveBack(elements);
    }

    /**
     * An immutable list of {@code elements[0..n)}, which must not be null, and {@code elements}
     * cleared up to {@code n} and given back ({@link #giveBack}): a scratch array keeps nothing.
     */
    @SuppressWarnings("unchecked")
    public static <T> List<T> first(Object[] elements, int n) {
        Object[] e = elements;
        List<Object> list = switch (n) {
            case 0 -> List.of();
            case 1 -> List.of(e[0]);
            case 2 -> List.of(e[0], e[1]);
            case 3 -> List.of(e[0], e[1], e[2]);
            case 4 -> List.of(e[0], e[1], e[2], e[3]);
            case 5 -> List.of(e[0], e[1], e[2], e[3], e[4]);
            case 6 -> List.of(e[0], e[1], e[2], e[3], e[4], e[5]);
            case 7 -> List.of(e[0], e[1], e[2], e[3], e[4], e[5], e[6]);
            case 8 -> List.of(e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7]);
            case 9 -> List.of(e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7], e[8]);
            case 10 -> List.of(e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7], e[8], e[9]);
            default -> List.of(Arrays.copyOf(e, n));
        };
        Arrays.fill(e, 0, n, null);
        giveBack(e);
        return (List<T>) list;
    }
}
