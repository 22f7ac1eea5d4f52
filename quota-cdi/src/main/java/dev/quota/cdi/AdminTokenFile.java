package dev.quota.cdi;

import dev.quota.jaxrs.AdminTokens;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * The admin token kept in a file rather than in a property, which logs and {@code ps} show:
 * read from a file only its owner may read ({@code quota.admin.token-file}).
 */
final class AdminTokenFile {

    /** Group and others must have none of these on a token file. */
    private static final Set<PosixFilePermission> NOT_FOR_OTHERS = EnumSet.of(
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE);
    /** A token is at most 256 characters; a longer file is not a token file. */
    private static final int MAX_BYTES = 1024;

    private AdminTokenFile() {
    }

    /**
     * The token in {@code file}: its content without surrounding white space (a final newline is
     * usual). On a POSIX file system the file must be readable and writable by its owner only.
     *
     * @throws IllegalArgumentException saying what is wrong with the file or the token, never the token
     */
    static String read(Path file) {
        boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
        try {
            BasicFileAttributes attributes = posix ? Files.readAttributes(file, PosixFileAttributes.class)
                    : Files.readAttributes(file, BasicFileAttributes.class);
            if (!attributes.isRegularFile()) {
                throw new IllegalArgumentException(file + " is not a regular file");
            }
            if (attributes instanceof PosixFileAttributes permissions) {
                Set<PosixFilePermission> granted = permissions.permissions();
                if (granted.stream().anyMatch(NOT_FOR_OTHERS::contains)) {
                    throw new IllegalArgumentException(file + " may be read or written by group or others ("
                            + PosixFilePermissions.toString(granted) + "); make it the owner's only: chmod 600 "
                            + file);
                }
            }
            if (attributes.size() > MAX_BYTES) {
                throw new IllegalArgumentException(file + " is " + attributes.size() + " bytes; a token file holds"
                        + " one token of at most 256 characters");
            }
            byte[] bytes;
            try (InputStream in = Files.newInputStream(file)) {
                bytes = in.readNBytes(MAX_BYTES + 1);
            }
            String token = new String(bytes, StandardCharsets.UTF_8).strip();
            try {
                AdminTokens.requireStrong(token);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
            }
            return token;
        } catch (IOException e) {
            throw new IllegalArgumentException(file + " cannot be read (" + e.getClass().getSimpleName() + ")", e);
        }
    }
}
