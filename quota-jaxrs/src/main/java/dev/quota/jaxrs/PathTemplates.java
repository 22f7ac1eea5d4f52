package dev.quota.jaxrs;

import jakarta.ws.rs.Path;
import java.lang.reflect.Method;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Path templates of resource methods and of config {@code matches} entries, in one comparable form.
 *
 * <p>Normal form: a leading {@code /}, no trailing {@code /}, no {@code //}, parameters without
 * regex: {@code accounts/{id: [0-9]+}/export/} becomes {@code /accounts/{id}/export}. The shape
 * used for matching also drops parameter names ({@code /accounts/{}/export}), since two templates
 * that differ only there are the same route, and a renamed parameter must not silently unbind a rule.
 */
final class PathTemplates {

    private PathTemplates() {
    }

    /** A {@code matches} entry: {@code "POST /api/v1/transfers"}; a bare path matches every method. */
    record Match(@Nullable String method, String shape) {

        /** Whether this entry names {@code method} (upper case) and {@code shape}. */
        boolean matches(String requestMethod, String templateShape) {
            return (method == null || method.equals(requestMethod)) && shape.equals(templateShape);
        }
    }

    /** Parses a {@code matches} entry. */
    static Match parseMatch(String entry) {
        String trimmed = entry.strip();
        int space = indexOfWhitespace(trimmed);
        if (space < 0 || trimmed.startsWith("/")) {
            return new Match(null, shape(trimmed));
        }
        return new Match(trimmed.substring(0, space).toUpperCase(Locale.ROOT), shape(trimmed.substring(space).strip()));
    }

    /**
     * The normal form of the template of {@code method} on {@code resourceClass}: class {@code @Path}
     * then method {@code @Path}, each looked up on supertypes too (annotated interfaces).
     */
    static String template(Class<?> resourceClass, Method method) {
        Path classPath = ResourceAnnotations.onClass(resourceClass, Path.class);
        Path methodPath = ResourceAnnotations.onMethod(resourceClass, method, Path.class);
        return normalize((classPath == null ? "" : classPath.value()) + "/"
                + (methodPath == null ? "" : methodPath.value()));
    }

    /** {@code {a: [0-9]+}//b/} to {@code /{a}/b}. */
    static String normalize(String path) {
        StringBuilder out = new StringBuilder(path.length() + 1).append('/');
        int i = 0;
        while (i < path.length()) {
            char c = path.charAt(i);
            if (c == '/') {
                if (out.charAt(out.length() - 1) != '/') {
                    out.append('/');
                }
                i++;
            } else if (c == '{') {
                int end = parameterEnd(path, i);
                if (end < 0) {
                    out.append(path, i, path.length()); // unbalanced: keep as written
                    break;
                }
                int colon = path.indexOf(':', i);
                int nameEnd = colon >= 0 && colon < end ? colon : end;
                out.append('{').append(path.substring(i + 1, nameEnd).strip()).append('}');
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

    /** The normal form without parameter names: {@code /accounts/{}/export}. */
    static String shape(String path) {
        String normal = normalize(path);
        if (normal.indexOf('{') < 0) {
            return normal;
        }
        StringBuilder out = new StringBuilder(normal.length());
        boolean inParameter = false;
        for (int i = 0; i < normal.length(); i++) {
            char c = normal.charAt(i);
            if (c == '{') {
                inParameter = true;
                out.append("{}");
            } else if (c == '}' && inParameter) {
                inParameter = false;
            } else if (!inParameter) {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** The index of the brace closing the parameter opened at {@code start}; regexes may nest braces. */
    private static int parameterEnd(String path, int start) {
        int depth = 0;
        for (int i = start; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c == '\\') {
                i++; // an escaped brace in the regex does not count
            } else if (c == '{') {
                depth++;
            } else if (c == '}' && --depth == 0) {
                return i;
            }
        }
        return -1;
    }

    private static int indexOfWhitespace(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (Character.isWhitespace(s.charAt(i))) {
                return i;
            }
        }
        return -1;
    }
}
