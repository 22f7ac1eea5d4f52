package dev.quota.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A generated admin token written to a new file only this user may read ({@code --admin} without a
 * token), so it is never on the command line, where every local user sees it in {@code ps}. A
 * token file given with {@code --admin-token-file} is read by
 * {@link dev.quota.jaxrs.admin.AdminTokens#fromFile}.
 */
final class AdminTokenFile {

    private AdminTokenFile() {
    }

    /**
     * Writes {@code token} to a new file in the temporary directory that only this user may read
     * ({@code rw-------} on POSIX), deleted when the JVM exits.
     *
     * @return the file
     * @throws UncheckedIOException if the file cannot be written
     */
    static Path create(String token) {
        try {
            Path file;
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                file = Files.createTempFile("quota-demo-admin-", ".token",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } else {
                file = Files.createTempFile("quota-demo-admin-", ".token");
            }
            file.toFile().deleteOnExit();
            Files.writeString(file, token + "\n", StandardCharsets.US_ASCII);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the admin token file", e);
        }
    }
}
