package dev.quota.jaxrs.internal;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Optional;

/**
 * Sends a response's buffered head and bytes to the client before its body is broken off, on every
 * runtime. A flush does it on most; Jersey's entity stream ignores a flush until the response is
 * committed (its first 8 KB are buffered), and an exception thrown before that is answered 500 with
 * the bytes dropped. Its stream has a public {@code commit()}, called here.
 */
public final class Commits {

    /** Per stream class: Jersey's public {@code commit()}, when it is one of Jersey's streams. */
    private static final ClassValue<Optional<Method>> COMMIT = new ClassValue<>() {
        @Override
        protected Optional<Method> computeValue(Class<?> type) {
            if (!type.getName().startsWith("org.glassfish.jersey.") || !Modifier.isPublic(type.getModifiers())) {
                return Optional.empty();
            }
            try {
                Method commit = type.getMethod("commit");
                return commit.getReturnType() == void.class ? Optional.of(commit) : Optional.empty();
            } catch (NoSuchMethodException e) {
                return Optional.empty();
            }
        }
    };

    private Commits() {
    }

    /** Commits the response whose entity stream {@code out} is, then flushes it. */
    public static void commitAndFlush(OutputStream out) throws IOException {
        Optional<Method> commit = COMMIT.get(out.getClass());
        if (commit.isPresent()) {
            try {
                commit.get().invoke(out);
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof IOException io) {
                    throw io;
                }
                throw new IOException("could not commit the response", e.getCause());
            } catch (IllegalAccessException e) {
                // not accessible here: the flush below does what it can
            }
        }
        out.flush();
    }
}
