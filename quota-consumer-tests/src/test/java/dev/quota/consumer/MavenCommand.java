package dev.quota.consumer;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The command that builds a consumer project: the same Maven that runs this build ({@code maven.home},
 * else {@code mvn} on the PATH), on the same local repository, offline only when this build is.
 */
final class MavenCommand {

    private MavenCommand() {
    }

    /** {@code mvn -B -q package} with this build's local repository, settings and offline mode. */
    static List<String> packageCommand(Path localRepository) {
        List<String> command = new ArrayList<>(List.of(executable(), "-B", "-q", "package",
                "-Dmaven.repo.local=" + localRepository));
        String settings = System.getProperty("quota.userSettings", "");
        if (settings.startsWith("file=") && Files.isRegularFile(Path.of(settings.substring("file=".length())))) {
            command.addAll(List.of("-s", settings.substring("file=".length())));
        }
        // Offline only when the artifacts are all local, which this build being offline proves;
        // otherwise the first run downloads the runtimes from Maven Central.
        if ("offline=true".equals(System.getProperty("quota.offline"))) {
            command.add("-o");
        }
        return command;
    }

    private static String executable() {
        boolean windows = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
        String name = windows ? "mvn.cmd" : "mvn";
        String home = System.getProperty("maven.home");
        if (home != null && !home.isBlank() && !home.startsWith("${")) {
            Path mvn = Path.of(home, "bin", name);
            if (Files.isExecutable(mvn)) {
                return mvn.toString();
            }
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path mvn = Path.of(dir, name);
            if (!dir.isEmpty() && Files.isExecutable(mvn)) {
                return mvn.toString();
            }
        }
        throw new IllegalStateException("no Maven to build the consumer projects: neither maven.home ("
                + home + ") nor the PATH has " + name);
    }
}
