package dev.quota.core.config;

import java.util.Objects;

/**
 * One problem in a config file, such as {@code plans.free.limits[0].capacity: must be >= 1 but was 0}.
 *
 * @param path    where the problem is: map keys joined by {@code .}, list positions in brackets
 *                ({@code plans.free.limits[0].capacity}), keys that are not plain words in quotes
 *                ({@code customers["acme corp"]}); empty for problems with the document as a whole,
 *                such as a YAML syntax error, whose message then gives the line and column
 * @param message what is wrong, echoing the offending value
 */
public record ConfigError(String path, String message) {

    /** @throws NullPointerException if either part is null */
    public ConfigError {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(message, "message");
    }

    /** {@code path: message}, or just the message when the path is empty. */
    @Override
    public String toString() {
        return path.isEmpty() ? message : path + ": " + message;
    }
}
