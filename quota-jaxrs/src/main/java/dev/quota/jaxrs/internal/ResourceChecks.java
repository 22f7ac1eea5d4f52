package dev.quota.jaxrs.internal;

import jakarta.ws.rs.container.ContainerRequestContext;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Method;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Resource classes whose methods the quota filter does not count but hands to a check of their
 * own, where the quota would have been taken: the admin API's token check. The filters know no
 * such class by name, so the admin API depends on them and not the reverse. A class marked
 * {@link Checked} registers, in its static initializer, what checks each of its methods
 * ({@link #register}); the quota filter asks {@link #of} when it binds a method, once per method.
 *
 * <p>Thread-safe: a concurrent map, written once per class and read once per resource method.
 * Nothing here is API.
 */
public final class ResourceChecks {

    /** Marks a resource class whose methods are checked instead of counted; it {@link #register}s the check. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    public @interface Checked {
    }

    /** The check of one resource method's requests: lets a request through, or aborts it with the answer. */
    @FunctionalInterface
    public interface Check {
        /** Aborts {@code request} to refuse it; returns without aborting to let it through. */
        void filter(ContainerRequestContext request);
    }

    private static final ConcurrentMap<Class<?>, Function<Method, Check>> checks = new ConcurrentHashMap<>();

    private ResourceChecks() {
    }

    /** Has the quota filter hand the requests of each method of {@code resourceClass} to {@code check}'s answer for it. */
    public static void register(Class<?> resourceClass, Function<Method, Check> check) {
        checks.putIfAbsent(resourceClass, check);
    }

    /**
     * The check of {@code method} as served by {@code resourceClass}; null for a class not marked
     * {@link Checked}, whose requests the quota filter counts.
     *
     * @throws IllegalStateException if the class is marked but registered no check
     */
    public static @Nullable Check of(Class<?> resourceClass, Method method) {
        if (!resourceClass.isAnnotationPresent(Checked.class)) {
            return null;
        }
        // A runtime that constructs the class itself binds its methods before it makes an instance,
        // when the static initializer that registers the check may not have run yet.
        initialize(resourceClass);
        Function<Method, Check> check = checks.get(resourceClass);
        if (check == null) {
            throw new IllegalStateException(resourceClass.getName() + " is marked @ResourceChecks.Checked but"
                    + " registered no check");
        }
        return check.apply(method);
    }

    private static void initialize(Class<?> type) {
        try {
            Class.forName(type.getName(), true, type.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(type.getName() + " cannot be initialized", e);
        }
    }
}
