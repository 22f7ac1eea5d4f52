package dev.quota.core.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Reads a config file without trusting what is at its path: only a regular file (a FIFO or a
 * device would block the reader or never end), only when its size is at most
 * {@link QuotaConfigLoader#MAX_SIZE}, both checked before it is opened, and then through a stream
 * that stops one byte past the limit, so a file that grows after the check is never read further.
 * A symbolic link is followed (a Kubernetes ConfigMap is a link to a link to a regular file).
 *
 * <p>Left open: a file replaced by a FIFO in the microseconds between the check and the open
 * makes that one read wait for a writer. Only someone who may rewrite the config can do that.
 */
final class ConfigFile {

    private ConfigFile() {
    }

    /** What reading the file gave. */
    sealed interface Read permits Content, Refused {
    }

    /**
     * The file's first {@code MAX_SIZE + 1} bytes at most: one more than allowed means it grew
     * past the limit after the size check, which the loader then refuses without parsing.
     */
    record Content(
            // the bytes read, handed to the loader alone: never compared, copied or changed
            @SuppressWarnings("ArrayRecordComponent") byte[] bytes) implements Read {
    }

    /**
     * The file was not read.
     *
     * @param condition what kind of refusal, such as {@code too-large}: the same condition is one
     *                  event however often it is found again
     * @param reason    for a log line or a config error, without the path
     * @param cause     the failure when the file could not be read, else null
     */
    record Refused(String condition, String reason, @Nullable IOException cause) implements Read {
    }

    /**
     * Checks and reads {@code file}.
     *
     * @param beforeOpen runs after the checks and before the file is opened (tests change the file there)
     */
    static Read read(Path file, Consumer<Path> beforeOpen) {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (IOException e) {
            return unreadable(e);
        }
        if (attributes.isDirectory()) {
            return new Refused("directory", "the config path is a directory, not a file", null);
        }
        if (!attributes.isRegularFile()) {
            return new Refused("not-a-regular-file", "the config path is not a regular file (a FIFO, a socket or"
                    + " a device), so it was not opened", null);
        }
        if (attributes.size() > QuotaConfigLoader.MAX_SIZE) {
            return new Refused("too-large", "the config is " + attributes.size() + " bytes; the limit is "
                    + QuotaConfigLoader.MAX_SIZE + " (1 MB), so it was not read", null);
        }
        beforeOpen.accept(file);
        try (InputStream in = Files.newInputStream(file)) {
            return new Content(in.readNBytes(QuotaConfigLoader.MAX_SIZE + 1));
        } catch (IOException e) {
            return unreadable(e);
        }
    }

    private static Refused unreadable(IOException e) {
        return new Refused("unreadable:" + e.getClass().getName(), "the config cannot be read: " + describe(e), e);
    }

    private static String describe(IOException e) {
        String message = e.getMessage();
        return message == null ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": " + message;
    }
}
