package dev.quota.consumer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Finds an installed JDK of at least a feature release, where Maven toolchains would: the
 * {@code jdkHome} entries of {@code ~/.m2/toolchains.xml}, then {@code JAVA_HOME} and the JDK
 * running this build, then every JDK under {@code /usr/lib/jvm} and {@code /Library/Java/JavaVirtualMachines}.
 * A JDK is a directory with {@code bin/java} and a {@code release} file naming its {@code JAVA_VERSION}.
 */
final class Jdks {

    private static final Pattern JDK_HOME = Pattern.compile("<jdkHome>\\s*([^<]+?)\\s*</jdkHome>");

    private Jdks() {
    }

    /** The first JDK of release {@code feature} or later, in the order above; empty when none is installed. */
    static Optional<Path> atLeast(int feature) {
        return candidates().stream().filter(home -> release(home) >= feature).findFirst();
    }

    /** Where this class looked, for the message when nothing was found. */
    static String searched() {
        return "~/.m2/toolchains.xml (jdkHome), JAVA_HOME, java.home, /usr/lib/jvm/*, /Library/Java/JavaVirtualMachines/*";
    }

    private static List<Path> candidates() {
        List<Path> homes = new ArrayList<>();
        Path toolchains = Path.of(System.getProperty("user.home"), ".m2", "toolchains.xml");
        if (Files.isRegularFile(toolchains)) {
            Matcher matcher = JDK_HOME.matcher(read(toolchains));
            while (matcher.find()) {
                homes.add(Path.of(matcher.group(1)));
            }
        }
        String javaHome = System.getenv("JAVA_HOME");
        if (javaHome != null && !javaHome.isBlank()) {
            homes.add(Path.of(javaHome));
        }
        homes.add(Path.of(System.getProperty("java.home")));
        for (Path dir : List.of(Path.of("/usr/lib/jvm"), Path.of("/Library/Java/JavaVirtualMachines"))) {
            if (Files.isDirectory(dir)) {
                try (Stream<Path> jdks = Files.list(dir)) {
                    jdks.sorted().forEach(jdk -> {
                        homes.add(jdk);
                        homes.add(jdk.resolve("Contents").resolve("Home"));
                    });
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        return homes;
    }

    /** The feature release of the JDK at {@code home} ({@code 25} for {@code JAVA_VERSION="25.0.3"}); 0 if it is none. */
    static int release(Path home) {
        Path release = home.resolve("release");
        if (!Files.isRegularFile(release) || !Files.isExecutable(home.resolve("bin").resolve("java"))) {
            return 0;
        }
        Properties properties = new Properties();
        properties.put("JAVA_VERSION", "");
        try (var reader = Files.newBufferedReader(release, StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (IOException | IllegalArgumentException e) {
            return 0;
        }
        String version = properties.getProperty("JAVA_VERSION").replace("\"", "");
        Matcher feature = Pattern.compile("^(1\\.)?(\\d+)").matcher(version);
        return feature.find() ? Integer.parseInt(feature.group(2)) : 0;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
