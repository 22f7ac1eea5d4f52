package dev.quota.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A server's private temp directory: created per server, deleted on close. */
final class WorkDir {

    private static final Logger log = LoggerFactory.getLogger(WorkDir.class);
    private static final int TAIL_CHARS = 4000;

    private WorkDir() {
    }

    /** A new {@code ${java.io.tmpdir}/quota-redis-<random>} directory. */
    static Path create() {
        try {
            return Files.createTempDirectory("quota-redis-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temp dir for redis-server", e);
        }
    }

    /** Deletes the directory and everything in it; logs instead of throwing, as cleanup must go on. */
    static void delete(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            log.warn("could not delete {}: {}", dir, e.toString());
        }
    }

    /** The last 4000 characters of a text file, for error messages; never throws. */
    static String tail(Path file) {
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            return text.length() <= TAIL_CHARS ? text : "..." + text.substring(text.length() - TAIL_CHARS);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }
}
