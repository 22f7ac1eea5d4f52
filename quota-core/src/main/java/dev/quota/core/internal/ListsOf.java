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
 * makes and the immutable list's own copy: about 160 bytes where these lists cost 56. The elements
 * are gathered in a per-thread array (cleared after use), so nothing else is made.
 */
public final class ListsOf {

    /** Past this many elements a list is copied as usual: no decision has that many buckets or limits. */
    private static final int MOST = 10;

    private static final ThreadLocal<Object[]> SCRATCH = ThreadLocal.withInitial(() -> new Object[MOST]);

    private ListsOf() {
    }

    /** This thread's array to gather at most {@link #MOST} elements in before {@link #first}. */
    public static Object[] scratch() {
        return SCRATCH.get();
    }

    /**
     * An immutable list of {@code elements[0..n)}, which must not be null, and {@code elements}
     * cleared up to {@code n} (a scratch array keeps nothing).
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
        return (List<T>) list;
    }

    /** Whether {@code n} elements fit the {@link #scratch()} array. */
    public static boolean fits(int n) {
        return n <= MOST;
    }
}
