package dev.quota.consumer;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the quota checkout is and which version it builds, as the surefire configuration passes them. */
final class Checkout {

    private Checkout() {
    }

    /** The repository root, holding README.md and every module. */
    static Path root() {
        Path root = Path.of(System.getProperty("quota.root", "..")).toAbsolutePath().normalize();
        if (!Files.isRegularFile(root.resolve("README.md"))) {
            throw new IllegalStateException("no README.md in " + root + ": run the tests through Maven");
        }
        return root;
    }

    /** The version every module of this build has, such as {@code 0.1.0-SNAPSHOT}. */
    static String version() {
        String version = System.getProperty("quota.version");
        if (version == null || version.isBlank()) {
            throw new IllegalStateException("system property quota.version is not set: run the tests through Maven");
        }
        return version;
    }

    /** The consumer projects, in the order their builds are started. */
    static Path projects() {
        return root().resolve("quota-consumer-tests").resolve("projects");
    }
}
