package dev.quota.core.internal;

import java.util.Collection;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * "Did you mean" for the config file and the server settings: the known name closest to a
 * misspelt one, by Levenshtein distance, ignoring case. {@code stroe} suggests {@code store}
 * (distance 2); a name 3 or more edits from every known one suggests nothing.
 */
public final class Suggestions {

    private static final int MAX_DISTANCE = 2;

    private Suggestions() {
    }

    /** The name in {@code known} within distance 2 of {@code name}, closest first (the first of equals), or null. */
    public static @Nullable String closest(String name, Collection<String> known) {
        String best = null;
        int bestDistance = MAX_DISTANCE + 1;
        for (String candidate : known) {
            int distance = distance(name.toLowerCase(Locale.ROOT), candidate.toLowerCase(Locale.ROOT));
            if (distance < bestDistance) {
                best = candidate;
                bestDistance = distance;
            }
        }
        return best;
    }

    /** The Levenshtein distance, or just the length difference once that alone is over 2. */
    static int distance(String a, String b) {
        if (Math.abs(a.length() - b.length()) > MAX_DISTANCE) {
            return Math.abs(a.length() - b.length());
        }
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
