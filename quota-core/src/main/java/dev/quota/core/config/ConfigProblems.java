package dev.quota.core.config;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** Collects the errors and warnings of one load, and builds the paths they are reported at. */
final class ConfigProblems {

    private static final Pattern PLAIN_KEY = Pattern.compile("[A-Za-z0-9_-]+");
    private static final int MAX_QUOTED = 80;

    private final List<ConfigError> errors = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();

    /**
     * Records an error. Control characters in the message (a value echoed by a parser, such as a
     * tab inside a quoted address) are escaped, so every error stays one printable line.
     */
    void error(String path, String message) {
        errors.add(new ConfigError(path, printable(message)));
    }

    void warn(String path, String message) {
        warnings.add(new ConfigError(path, printable(message)).toString());
    }

    int errorCount() {
        return errors.size();
    }

    boolean hasErrors() {
        return !errors.isEmpty();
    }

    List<ConfigError> errors() {
        return List.copyOf(errors);
    }

    List<String> warnings() {
        return List.copyOf(warnings);
    }

    /** {@code plans} + {@code free} = {@code plans.free}; odd keys are quoted: {@code customers["a b"]}. */
    static String key(String path, String key) {
        if (PLAIN_KEY.matcher(key).matches()) {
            return path.isEmpty() ? key : path + "." + key;
        }
        return path + "[" + quote(key) + "]";
    }

    /** {@code limits} + 2 = {@code limits[2]}. */
    static String index(String path, int index) {
        return path + "[" + index + "]";
    }

    /**
     * A value as error messages show it: strings quoted (and cut short), numbers and booleans as
     * they are, collections by kind only (they may be huge or, through aliases, shared).
     */
    static String describe(@Nullable Object value) {
        if (value == null) {
            return "empty";
        }
        if (value instanceof String s) {
            return quote(s);
        }
        if (value instanceof java.util.Map) {
            return "a map";
        }
        if (value instanceof List) {
            return "a list";
        }
        return String.valueOf(value);
    }

    /** {@code text} with control characters and surrogates as {@code \\uXXXX}, the rest as it is. */
    static String printable(String text) {
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (escaped(c)) {
                if (out == null) {
                    out = new StringBuilder(text.length() + 16).append(text, 0, i);
                }
                out.append(String.format("\\u%04x", (int) c));
            } else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? text : out.toString();
    }

    private static boolean escaped(char c) {
        return c < 0x20 || c == 0x7f || Character.isSurrogate(c);
    }

    /** {@code "text"} with quotes and backslashes escaped, control characters as {@code \\uXXXX}. */
    static String quote(String text) {
        String shown = text.length() > MAX_QUOTED ? text.substring(0, MAX_QUOTED) : text;
        var out = new StringBuilder(shown.length() + 8).append('"');
        for (int i = 0; i < shown.length(); i++) {
            char c = shown.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (escaped(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        out.append('"');
        return shown.length() < text.length() ? out.append("...").toString() : out.toString();
    }
}
