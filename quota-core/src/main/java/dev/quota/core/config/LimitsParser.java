package dev.quota.core.config;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.internal.Durations;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** Reads a list of limits ({@code plans.free.limits}, {@code rules.x.shared}, ...). */
final class LimitsParser {

    static final String NAME_RULE = "[a-z0-9][a-z0-9_-]{0,62}";
    private static final String[] KEYS = {"name", "capacity", "refill", "tokens", "period", "window", "zone"};

    private LimitsParser() {
    }

    /**
     * The limits at {@code path}, or null when the list or any limit in it is invalid (errors
     * recorded). {@code required} lists must hold at least one limit.
     */
    static @Nullable List<Limit> parse(@Nullable Object value, String path, boolean required, ConfigProblems problems) {
        if (!(value instanceof List<?> items)) {
            problems.error(path, "must be a list of limits but was " + ConfigProblems.describe(value));
            return null;
        }
        if (required && items.isEmpty()) {
            problems.error(path, "must have at least one limit");
            return null;
        }
        int errorsBefore = problems.errorCount();
        List<Limit> limits = new ArrayList<>();
        Map<String, String> firstPathByName = new HashMap<>();
        for (int i = 0; i < items.size(); i++) {
            Limit limit = parseLimit(items.get(i), ConfigProblems.index(path, i), firstPathByName, problems);
            if (limit != null) {
                limits.add(limit);
            }
        }
        return problems.errorCount() > errorsBefore ? null : limits;
    }

    private static @Nullable Limit parseLimit(@Nullable Object value, String path, Map<String, String> firstPathByName,
                                              ConfigProblems problems) {
        ConfigMap map = ConfigMap.of(value, path, problems);
        if (map == null) {
            return null;
        }
        int errorsBefore = problems.errorCount();
        map.allowOnly(KEYS);
        map.require("name", "capacity");
        String name = name(map, "name", problems);
        if (name != null) {
            String first = firstPathByName.putIfAbsent(name, map.path("name"));
            if (first != null) {
                problems.error(map.path("name"), "duplicate limit name " + ConfigProblems.quote(name) + " (also at " + first + ")");
            }
        }
        Long capacity = map.integer("capacity", 1);
        String refill = map.has("refill") ? map.choice("refill", "greedy", "interval", "calendar") : "greedy";
        Refill parsedRefill = null;
        if ("calendar".equals(refill)) {
            parsedRefill = calendar(map, problems);
        } else if (refill != null) {
            parsedRefill = periodic(map, refill, capacity, problems);
        }
        if (problems.errorCount() > errorsBefore || name == null || capacity == null || parsedRefill == null) {
            return null;
        }
        try {
            return new Limit(name, capacity, parsedRefill);
        } catch (IllegalArgumentException e) {
            problems.error(path, String.valueOf(e.getMessage()));
            return null;
        }
    }

    private static @Nullable Refill calendar(ConfigMap map, ConfigProblems problems) {
        for (String key : new String[] {"tokens", "period"}) {
            if (map.has(key)) {
                problems.error(map.path(key), "not allowed with refill calendar (the whole capacity returns at each window start)");
            }
        }
        if (!map.require("window")) {
            return null;
        }
        String window = map.choice("window", "hour", "day", "week", "month");
        ZoneId zone = ZoneOffset.UTC;
        if (map.has("zone")) {
            String zoneText = map.string("zone");
            if (zoneText == null) {
                return null;
            }
            try {
                zone = ZoneId.of(zoneText).normalized();
            } catch (DateTimeException e) {
                problems.error(map.path("zone"), "unknown time zone " + ConfigProblems.quote(zoneText)
                        + " (use a region such as Europe/Berlin, or UTC)");
                return null;
            }
        }
        if (window == null) {
            return null;
        }
        return Refill.calendar(windowUnit(window), zone);
    }

    private static @Nullable Refill periodic(ConfigMap map, String refill, @Nullable Long capacity, ConfigProblems problems) {
        for (String key : new String[] {"window", "zone"}) {
            if (map.has(key)) {
                problems.error(map.path(key), "only allowed with refill calendar, not " + refill);
            }
        }
        Long tokens = map.integer("tokens", 1);
        boolean tokensValid = !map.has("tokens") || tokens != null;
        if (tokens != null && capacity != null && tokens > capacity) {
            problems.error(map.path("tokens"), "must be <= capacity (" + capacity + ") but was " + tokens);
            tokensValid = false;
        }
        Duration period = map.require("period") ? period(map.raw("period"), map.path("period"), problems) : null;
        if (period == null || capacity == null || !tokensValid) {
            return null;
        }
        long refillTokens = tokens == null ? capacity : tokens;
        return "interval".equals(refill) ? Refill.interval(refillTokens, period) : Refill.greedy(refillTokens, period);
    }

    /**
     * A period such as {@code 500ms}, {@code 1s}, {@code 15m}, {@code 2h} or {@code 7d}: a whole
     * number and a unit, greater than zero. Null (with an error) if it is anything else.
     */
    static @Nullable Duration period(@Nullable Object value, String path, ConfigProblems problems) {
        if (!(value instanceof String text)) {
            problems.error(path, "must be a number and a unit like 15m (units " + Durations.UNITS + ") but was "
                    + ConfigProblems.describe(value));
            return null;
        }
        try {
            return Durations.parse(text, ConfigProblems::quote);
        } catch (IllegalArgumentException e) {
            problems.error(path, Objects.requireNonNullElse(e.getMessage(), "not a duration"));
            return null;
        }
    }

    /** A plan, rule, amount or limit name at {@code key}, checked against {@value #NAME_RULE}. */
    static @Nullable String name(ConfigMap map, String key, ConfigProblems problems) {
        String name = map.string(key);
        if (name != null && !Limit.isValidName(name)) {
            problems.error(map.path(key), "must match " + NAME_RULE + " but was " + ConfigProblems.quote(name));
            return null;
        }
        return name;
    }

    private static ChronoUnit windowUnit(String window) {
        return switch (window) {
            case "hour" -> ChronoUnit.HOURS;
            case "day" -> ChronoUnit.DAYS;
            case "week" -> ChronoUnit.WEEKS;
            default -> ChronoUnit.MONTHS;
        };
    }
}
