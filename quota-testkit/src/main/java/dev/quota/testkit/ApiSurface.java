package dev.quota.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The public API of a module, as one sorted line per type and per public or protected member of the
 * classes it compiled, outside packages named {@code internal}. A module's test compares it with a
 * file checked in beside its tests, so that every change to what users can call shows up in review
 * as a change to that file, and checks that no API line names an internal type (an internal type in
 * a public signature would make it API after all).
 *
 * <pre>{@code
 * ApiSurface surface = ApiSurface.of(Path.of("target/classes"), "dev.quota.core");
 * assertThat(surface.internalTypesInApi()).isEmpty();
 * surface.assertMatches(Path.of("src/test/resources/api.txt"));
 * }</pre>
 *
 * <p>To accept an intended change, run the module's test with {@code -DupdateApiSurface=true}: the
 * file is rewritten and the diff is what a reviewer reads.
 */
public final class ApiSurface {

    /** System property that makes {@link #assertMatches} write the file instead of comparing. */
    public static final String UPDATE_PROPERTY = "updateApiSurface";

    private static final Pattern INTERNAL_TYPE = Pattern.compile("[\\w.$]*\\.internal\\.[\\w$]+");

    private final List<String> lines;

    private ApiSurface(List<String> lines) {
        this.lines = lines;
    }

    /**
     * The API of the classes under {@code classesDir} in {@code rootPackage} and below, loaded by
     * the calling test's class loader without initializing them.
     *
     * @throws UncheckedIOException if the directory cannot be read
     * @throws IllegalStateException if a compiled class cannot be loaded
     */
    public static ApiSurface of(Path classesDir, String rootPackage) {
        Path root = classesDir.resolve(rootPackage.replace('.', '/'));
        List<String> classNames;
        try (Stream<Path> files = Files.walk(root)) {
            classNames = files.filter(p -> p.toString().endsWith(".class"))
                    .map(p -> classesDir.relativize(p).toString())
                    .map(s -> s.substring(0, s.length() - ".class".length()).replace('/', '.').replace('\\', '.'))
                    .filter(name -> !name.endsWith("package-info") && !name.endsWith("module-info"))
                    .filter(name -> !isInternal(name))
                    .sorted()
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + root, e);
        }
        Set<String> lines = new TreeSet<>();
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        for (String name : classNames) {
            Class<?> type;
            try {
                type = Class.forName(name, false, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                throw new IllegalStateException("cannot load " + name + " from " + classesDir, e);
            }
            if (isVisible(type)) {
                describe(type, lines);
            }
        }
        return new ApiSurface(List.copyOf(lines));
    }

    /** One line per API type and member, sorted. */
    public List<String> lines() {
        return lines;
    }

    /** The lines that name a type from an {@code internal} package; empty when the API keeps them out. */
    public List<String> internalTypesInApi() {
        List<String> leaks = new ArrayList<>();
        for (String line : lines) {
            Matcher m = INTERNAL_TYPE.matcher(line);
            if (m.find()) {
                leaks.add(line);
            }
        }
        return leaks;
    }

    /**
     * Compares the API with {@code expectedFile}, or writes it there when the system property
     * {@value #UPDATE_PROPERTY} is true.
     *
     * @throws AssertionError naming the lines added and removed, and how to accept the change
     */
    public void assertMatches(Path expectedFile) {
        try {
            if (Boolean.getBoolean(UPDATE_PROPERTY)) {
                Files.createDirectories(expectedFile.toAbsolutePath().getParent());
                Files.write(expectedFile, lines, StandardCharsets.UTF_8);
                return;
            }
            List<String> expected = Files.exists(expectedFile)
                    ? Files.readAllLines(expectedFile, StandardCharsets.UTF_8) : List.of();
            Set<String> removed = new TreeSet<>(expected);
            lines.forEach(removed::remove);
            removed.remove("");
            Set<String> added = new TreeSet<>(lines);
            expected.forEach(added::remove);
            if (!removed.isEmpty() || !added.isEmpty()) {
                StringBuilder message = new StringBuilder("the public API differs from ").append(expectedFile)
                        .append(" (if intended, rerun this test with -D").append(UPDATE_PROPERTY)
                        .append("=true and commit the file):");
                added.forEach(l -> message.append("\n  + ").append(l));
                removed.forEach(l -> message.append("\n  - ").append(l));
                throw new AssertionError(message.toString());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or write " + expectedFile, e);
        }
    }

    private static boolean isInternal(String className) {
        return className.contains(".internal.");
    }

    /** Public, and for a nested type public or protected in a type that is visible itself. */
    private static boolean isVisible(Class<?> type) {
        if (type.isAnonymousClass() || type.isLocalClass() || type.isSynthetic()) {
            return false;
        }
        int m = type.getModifiers();
        if (type.getEnclosingClass() == null) {
            return Modifier.isPublic(m);
        }
        return (Modifier.isPublic(m) || Modifier.isProtected(m)) && isVisible(type.getEnclosingClass());
    }

    private static void describe(Class<?> type, Set<String> lines) {
        String name = type.getName();
        int modifiers = type.getModifiers() & ~Modifier.STATIC;
        if (type.isInterface()) {
            modifiers &= ~(Modifier.INTERFACE | Modifier.ABSTRACT);
        }
        StringBuilder header = new StringBuilder(name).append(": ")
                .append(Modifier.toString(modifiers)).append(' ').append(kind(type));
        Class<?> superclass = type.getSuperclass();
        if (superclass != null && superclass != Object.class && superclass != Record.class
                && superclass != Enum.class) {
            header.append(" extends ").append(type.getGenericSuperclass().getTypeName());
        }
        if (type.getGenericInterfaces().length > 0 && !type.isAnnotation()) {
            header.append(type.isInterface() ? " extends " : " implements ").append(Arrays.stream(type.getGenericInterfaces())
                    .map(Type::getTypeName).sorted().collect(Collectors.joining(", ")));
        }
        lines.add(header.toString());
        boolean openForSubclasses = !Modifier.isFinal(type.getModifiers()) && !type.isEnum() && !type.isRecord();
        for (Constructor<?> c : type.getDeclaredConstructors()) {
            if (visible(c, openForSubclasses)) {
                lines.add(name + ": " + c.toGenericString());
            }
        }
        for (Method method : type.getDeclaredMethods()) {
            if (visible(method, openForSubclasses) && !method.isBridge()) {
                lines.add(name + ": " + method.toGenericString());
            }
        }
        for (Field field : type.getDeclaredFields()) {
            if (visible(field, openForSubclasses)) {
                lines.add(name + ": " + field.toGenericString());
            }
        }
    }

    private static boolean visible(Member member, boolean openForSubclasses) {
        int m = member.getModifiers();
        return !member.isSynthetic() && (Modifier.isPublic(m) || (openForSubclasses && Modifier.isProtected(m)));
    }

    private static String kind(Class<?> type) {
        if (type.isAnnotation()) {
            return "@interface";
        }
        if (type.isInterface()) {
            return "interface";
        }
        if (type.isEnum()) {
            return "enum";
        }
        if (type.isRecord()) {
            return "record";
        }
        return "class";
    }
}
