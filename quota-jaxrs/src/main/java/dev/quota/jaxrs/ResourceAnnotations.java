package dev.quota.jaxrs;

import jakarta.ws.rs.HttpMethod;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Annotations of resource classes and methods, looked up the way Jakarta REST inherits them: on
 * the class or method first, then on superclasses and implemented interfaces (an API interface
 * carrying {@code @Path} and {@code @GET}, implemented by the resource class).
 */
final class ResourceAnnotations {

    private ResourceAnnotations() {
    }

    /** The HTTP method a resource method is designated for ({@code GET}), or null for a locator. */
    static @Nullable String httpMethod(Class<?> resourceClass, Method method) {
        for (Method candidate : overridden(resourceClass, method)) {
            for (Annotation annotation : candidate.getAnnotations()) {
                HttpMethod designator = annotation.annotationType().getAnnotation(HttpMethod.class);
                if (designator != null) {
                    return designator.value().toUpperCase(Locale.ROOT);
                }
            }
        }
        return null;
    }

    /** {@code annotationType} on the class or one of its supertypes, nearest first. */
    static <A extends Annotation> @Nullable A onClass(Class<?> type, Class<A> annotationType) {
        Deque<Class<?>> queue = new ArrayDeque<>();
        Set<Class<?>> seen = new HashSet<>();
        queue.add(type);
        while (!queue.isEmpty()) {
            Class<?> next = queue.poll();
            if (next == Object.class || !seen.add(next)) {
                continue;
            }
            A found = next.getAnnotation(annotationType);
            if (found != null) {
                return found;
            }
            if (next.getSuperclass() != null) {
                queue.add(next.getSuperclass());
            }
            for (Class<?> iface : next.getInterfaces()) {
                queue.add(iface);
            }
        }
        return null;
    }

    /** {@code annotationType} on the method or on a method it overrides or implements, nearest first. */
    static <A extends Annotation> @Nullable A onMethod(Class<?> type, Method method, Class<A> annotationType) {
        for (Method candidate : overridden(type, method)) {
            A found = candidate.getAnnotation(annotationType);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    /** The method itself, then methods of the same signature in the resource class and its supertypes. */
    private static List<Method> overridden(Class<?> type, Method method) {
        List<Method> out = new ArrayList<>(2);
        out.add(method);
        Deque<Class<?>> queue = new ArrayDeque<>();
        Set<Class<?>> seen = new HashSet<>();
        queue.add(type);
        queue.add(method.getDeclaringClass());
        while (!queue.isEmpty()) {
            Class<?> next = queue.poll();
            if (next == Object.class || !seen.add(next)) {
                continue;
            }
            if (next != method.getDeclaringClass()) {
                try {
                    out.add(next.getDeclaredMethod(method.getName(), method.getParameterTypes()));
                } catch (NoSuchMethodException e) {
                    // not declared here; keep looking up the hierarchy
                }
            }
            if (next.getSuperclass() != null) {
                queue.add(next.getSuperclass());
            }
            for (Class<?> iface : next.getInterfaces()) {
                queue.add(iface);
            }
        }
        return out;
    }
}
