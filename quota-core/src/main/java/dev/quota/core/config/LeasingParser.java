package dev.quota.core.config;

import dev.quota.core.Mode;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Reads {@code leasing: on|off} (global, per plan, per rule) and refuses a setting that cannot
 * work, with its path: leased shares of a limit in shadow mode, or of a rule without rate limits.
 */
final class LeasingParser {

    private LeasingParser() {
    }

    /**
     * The {@code leasing} of {@code map}: true for on, false for off, null when absent or wrong (an
     * error recorded). YAML reads a bare {@code on}/{@code off} as a boolean; both spellings are taken.
     */
    static @Nullable Boolean parse(ConfigMap map, ConfigProblems problems) {
        if (!map.has("leasing")) {
            return null;
        }
        Object raw = map.raw("leasing");
        if (raw instanceof Boolean on) {
            return on;
        }
        if (raw instanceof String text) {
            String word = text.trim().toLowerCase(Locale.ROOT);
            if (word.equals("on") || word.equals("true")) {
                return Boolean.TRUE;
            }
            if (word.equals("off") || word.equals("false")) {
                return Boolean.FALSE;
            }
        }
        problems.error(map.path("leasing"), "must be on or off but was " + ConfigProblems.describe(raw));
        return null;
    }

    /**
     * Refuses {@code leasing: on} where no bucket could be leased: a plan or rule in shadow mode
     * (a shadow limit never refuses, so it is never leased), or a rule without rate limits.
     */
    static void check(@Nullable Boolean leasing, ConfigMap map, @Nullable Mode mode, boolean hasRateLimits,
                      ConfigProblems problems) {
        if (!Boolean.TRUE.equals(leasing)) {
            return;
        }
        if (mode == Mode.SHADOW) {
            problems.error(map.path("leasing"), "on cannot work with mode: shadow (a limit in shadow mode is never"
                    + " leased); remove one of them");
        } else if (!hasRateLimits) {
            problems.error(map.path("leasing"), "on cannot work without limits or shared limits to lease");
        }
    }
}
