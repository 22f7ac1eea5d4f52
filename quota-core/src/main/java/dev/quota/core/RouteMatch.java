package dev.quota.core;

import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One entry of a rule's {@code match} list, parsed once when the config is loaded:
 * {@code "POST /api/v1/transfers"} or {@code "GET /api/v1/accounts/{id}/export"}.
 *
 * <p>Paths are compared in one normal form, the <em>shape</em>: a leading {@code /}, no trailing
 * {@code /}, no {@code //}, and every template parameter as {@code {}}. A resource method's
 * {@code @Path} template {@code accounts/{id: [0-9]+}/export/} and the config entry
 * {@code /accounts/{accountId}/export} have the same shape {@code /accounts/{}/export}: a renamed
 * parameter or a regex does not silently unbind a rule.
 *
 * @param method the HTTP method, upper case
 * @param shape  the path's shape
 */
public record RouteMatch(String method, String shape) {

    /** The methods a match may name. */
    public static final Set<String> METHODS = Set.of("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS");

    private static final Pattern PATH = Pattern.compile(
            "(?:/(?:[A-Za-z0-9._~!$&'()*+,;=:@%-]|\\{[A-Za-z_][A-Za-z0-9_]*\\})*)+");

    /** @throws IllegalArgumentException if the method is not one of {@link #METHODS} */
    public RouteMatch {
        Objects.requireNonNull(shape, "shape");
        if (!METHODS.contains(method)) {
            throw new IllegalArgumentException("method must be one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS"
                    + " but was \"" + method + "\"");
        }
    }

    /**
     * Parses {@code "METHOD /path"}: one space, a method of {@link #METHODS}, a path starting with
     * {@code /} whose segments are URI path characters or {@code {name}} templates.
     *
     * @throws IllegalArgumentException with a message fit for a config error, if malformed
     */
    public static RouteMatch parse(String entry) {
        Objects.requireNonNull(entry, "entry");
        int space = entry.indexOf(' ');
        if (space < 0 || !METHODS.contains(entry.substring(0, space))) {
            throw new IllegalArgumentException("must be \"METHOD /path\" with METHOD one of GET, POST, PUT, PATCH,"
                    + " DELETE, HEAD, OPTIONS but was \"" + entry + "\"");
        }
        String path = entry.substring(space + 1);
        if (!PATH.matcher(path).matches()) {
            throw new IllegalArgumentException("path must start with / and may use {name} templates but was \""
                    + path + "\"");
        }
        return new RouteMatch(entry.substring(0, space), shapeOf(path));
    }

    /** Whether this entry names {@code method} and a path template of shape {@code templateShape}. */
    public boolean matches(String requestMethod, String templateShape) {
        return method.equals(requestMethod.toUpperCase(Locale.ROOT)) && shape.equals(templateShape);
    }

    @Override
    public String toString() {
        return method + " " + shape;
    }

    /**
     * The shape of a path template: {@code accounts/{id: [0-9]+}//export/} becomes
     * {@code /accounts/{}/export}. Regexes may nest braces; an unbalanced brace is kept as written.
     */
    public static String shapeOf(String template) {
        StringBuilder out = new StringBuilder(template.length() + 1).append('/');
        int i = 0;
        while (i < template.length()) {
            char c = template.charAt(i);
            if (c == '/') {
                if (out.charAt(out.length() - 1) != '/') {
                    out.append('/');
                }
                i++;
            } else if (c == '{') {
                int end = parameterEnd(template, i);
                if (end < 0) {
                    out.append(template, i, template.length());
                    break;
                }
                out.append("{}");
                i = end + 1;
            } else {
                out.append(c);
                i++;
            }
        }
        if (out.length() > 1 && out.charAt(out.length() - 1) == '/') {
            out.setLength(out.length() - 1);
        }
        return out.toString();
    }

    /** The index of the brace closing the parameter opened at {@code start}; an escaped brace does not count. */
    private static int parameterEnd(String path, int start) {
        int depth = 0;
        for (int i = start; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '{') {
                depth++;
            } else if (c == '}' && --depth == 0) {
                return i;
            }
        }
        return -1;
    }
}
