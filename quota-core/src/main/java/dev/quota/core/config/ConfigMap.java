package dev.quota.core.config;

import dev.quota.core.internal.Suggestions;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One map of the YAML tree at a known path, read with type checks. Every read that finds a bad
 * value records an error at the value's path and returns null, so the caller goes on and the file
 * gets all its errors reported at once.
 */
final class ConfigMap {

    private final Map<String, Object> values;
    private final String path;
    private final ConfigProblems problems;

    private ConfigMap(Map<String, Object> values, String path, ConfigProblems problems) {
        this.values = values;
        this.path = path;
        this.problems = problems;
    }

    /** The config file's top level, already known to be a map. */
    @SuppressWarnings("unchecked")
    static ConfigMap root(Map<?, ?> top, ConfigProblems problems) {
        return new ConfigMap((Map<String, Object>) top, "", problems);
    }

    /** The value as a map, or null (with an error) if it is something else. */
    @SuppressWarnings("unchecked")
    static @Nullable ConfigMap of(@Nullable Object value, String path, ConfigProblems problems) {
        if (value instanceof Map) {
            return new ConfigMap((Map<String, Object>) value, path, problems);
        }
        problems.error(path, "must be a map but was " + ConfigProblems.describe(value));
        return null;
    }

    String path() {
        return path;
    }

    String path(String key) {
        return ConfigProblems.key(path, key);
    }

    Set<String> keys() {
        return values.keySet();
    }

    boolean has(String key) {
        return values.containsKey(key);
    }

    @Nullable Object raw(String key) {
        return values.get(key);
    }

    /** Reports every key not in {@code allowed}, suggesting the closest allowed key. */
    void allowOnly(String... allowed) {
        List<String> allowedKeys = Arrays.asList(allowed);
        for (String key : values.keySet()) {
            if (!allowedKeys.contains(key)) {
                String suggestion = closest(key, allowed);
                problems.error(path, "unknown key " + ConfigProblems.quote(key) + (suggestion == null
                        ? " (allowed: " + String.join(", ", allowed) + ")"
                        : " (did you mean \"" + suggestion + "\"?)"));
            }
        }
    }

    /** Reports each missing key; true when all are present. */
    boolean require(String... keys) {
        boolean all = true;
        for (String key : keys) {
            if (!values.containsKey(key)) {
                problems.error(path, "missing required key \"" + key + "\"");
                all = false;
            }
        }
        return all;
    }

    /** An integer {@code >= min}, or null if absent or invalid. */
    @Nullable Long integer(String key, long min) {
        if (!has(key)) {
            return null;
        }
        Object value = values.get(key);
        if (value instanceof BigInteger) {
            problems.error(path(key), "must be at most " + Long.MAX_VALUE + " but was " + value);
            return null;
        }
        if (!(value instanceof Integer || value instanceof Long)) {
            problems.error(path(key), "must be an integer but was " + ConfigProblems.describe(value));
            return null;
        }
        long number = ((Number) value).longValue();
        if (number < min) {
            problems.error(path(key), "must be >= " + min + " but was " + number);
            return null;
        }
        return number;
    }

    /** {@code true} or {@code false}, or null if absent or invalid. */
    @Nullable Boolean bool(String key) {
        if (!has(key)) {
            return null;
        }
        Object value = values.get(key);
        if (value instanceof Boolean b) {
            return b;
        }
        problems.error(path(key), "must be true or false but was " + ConfigProblems.describe(value));
        return null;
    }

    /** A finite number {@code > 0}, or null if absent or invalid. */
    @Nullable Double positiveNumber(String key) {
        if (!has(key)) {
            return null;
        }
        Object value = values.get(key);
        if (!(value instanceof Number given)) {
            problems.error(path(key), "must be a number but was " + ConfigProblems.describe(value));
            return null;
        }
        double number = given.doubleValue();
        if (!(number > 0) || Double.isInfinite(number)) {
            problems.error(path(key), "must be a finite number > 0 but was " + value);
            return null;
        }
        return number;
    }

    /**
     * A string, or null if absent or invalid. Integers are taken as their decimal text so that
     * {@code plan: 2024} names the plan {@code 2024}; booleans and fractions must be quoted.
     */
    @Nullable String string(String key) {
        if (!has(key)) {
            return null;
        }
        return string(values.get(key), path(key), problems);
    }

    /** {@link #string(String)} for a value that is not in a map, such as a list item. */
    static @Nullable String string(@Nullable Object value, String path, ConfigProblems problems) {
        if (value instanceof String s) {
            return s;
        }
        if (value instanceof Integer || value instanceof Long || value instanceof BigInteger) {
            return value.toString();
        }
        problems.error(path, "must be a string but was " + ConfigProblems.describe(value)
                + (value instanceof Boolean || value instanceof Double ? " (put it in quotes)" : ""));
        return null;
    }

    /** One of {@code choices} (case-insensitive, returned in lower case), or null if absent or invalid. */
    @Nullable String choice(String key, String... choices) {
        String text = string(key);
        if (text == null) {
            return null;
        }
        String lower = text.toLowerCase(Locale.ROOT);
        if (Arrays.asList(choices).contains(lower)) {
            return lower;
        }
        problems.error(path(key), "must be one of " + String.join(", ", choices) + " but was " + ConfigProblems.quote(text));
        return null;
    }

    /** A list, or null if absent or (with an error) not a list. */
    @SuppressWarnings("unchecked")
    @Nullable List<Object> list(String key) {
        if (!has(key)) {
            return null;
        }
        Object value = values.get(key);
        if (value instanceof List) {
            return new ArrayList<>((List<Object>) value);
        }
        problems.error(path(key), "must be a list but was " + ConfigProblems.describe(value));
        return null;
    }

    /** A nested map, or null if absent or (with an error) not a map. */
    @Nullable ConfigMap map(String key) {
        return has(key) ? of(values.get(key), path(key), problems) : null;
    }

    /** The allowed key within Levenshtein distance 2 of {@code key}, closest first, or null. */
    static @Nullable String closest(String key, String... allowed) {
        return Suggestions.closest(key, Arrays.asList(allowed));
    }
}
