package dev.quota.jaxrs.admin;

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
import java.security.SecureRandom;
import java.util.Base64;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * What a {@link QuotaAdminResource} token must be, and a way to make one.
 *
 * <p>A token is accepted when it has
 * <ul>
 *   <li>32 to 256 characters, all visible ASCII ({@code 0x21}-{@code 0x7E});
 *   <li>at least 10 different characters ({@code aaaa...} and {@code abab...} are not tokens);
 *   <li>an estimated strength of at least 128 bits: its length times log2 of the alphabet its
 *       character classes span (lower case 26, upper case 26, digits 10, symbols 32).
 * </ul>
 * So {@code openssl rand -hex 32} (64 characters over 36: 330 bits), {@code openssl rand -base64 32}
 * (44 over 94: 288 bits) and a UUID (36 over 68: 219 bits) pass; 32 digits (106 bits) do not,
 * 39 digits do. The estimate is what a guesser faces if the characters were drawn at random; a
 * token made of words is weaker than it says, so generate tokens ({@link #generate()}).
 *
 * <p>Messages say which rule a token breaks and its length, never the token. {@link #fromFile}
 * reads one from a file only its owner may read.
 */
public final class AdminTokens {

    /** The fewest characters: 32. */
    public static final int MIN_LENGTH = 32;
    /** The most characters: 256. */
    public static final int MAX_LENGTH = 256;
    /** The fewest different characters: 10. */
    public static final int MIN_DISTINCT = 10;
    /** The least estimated strength, in bits: 128. */
    public static final int MIN_BITS = 128;

    private static final SecureRandom RANDOM = new SecureRandom();
    /** Group and others must have none of these on a token file. */
    private static final Set<PosixFilePermission> NOT_FOR_OTHERS = EnumSet.of(
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE);
    /** A token file holds one token; a longer file is not a token file. */
    private static final int MAX_FILE_BYTES = 1024;

    private AdminTokens() {
    }

    /**
     * Checks {@code token} against the rules above.
     *
     * @throws IllegalArgumentException naming the broken rule and the token's length, never the token
     * @throws NullPointerException     if the token is null
     */
    public static void requireStrong(String token) {
        int length = token.length();
        if (length < MIN_LENGTH || length > MAX_LENGTH) {
            throw new IllegalArgumentException("admin token must be " + MIN_LENGTH + " to " + MAX_LENGTH
                    + " characters but was " + length + " characters long");
        }
        boolean lower = false;
        boolean upper = false;
        boolean digit = false;
        boolean symbol = false;
        boolean[] seen = new boolean[128];
        int distinct = 0;
        for (int i = 0; i < length; i++) {
            char c = token.charAt(i);
            if (c <= 0x20 || c >= 0x7F) {
                throw new IllegalArgumentException("admin token must be visible ASCII characters (0x21-0x7E) only;"
                        + " character " + (i + 1) + " of " + length + " is not");
            }
            if (!seen[c]) {
                seen[c] = true;
                distinct++;
            }
            if (c >= 'a' && c <= 'z') {
                lower = true;
            } else if (c >= 'A' && c <= 'Z') {
                upper = true;
            } else if (c >= '0' && c <= '9') {
                digit = true;
            } else {
                symbol = true;
            }
        }
        if (distinct < MIN_DISTINCT) {
            throw new IllegalArgumentException("admin token must have at least " + MIN_DISTINCT
                    + " different characters but has " + distinct + " (it is " + length + " characters long)");
        }
        int alphabet = (lower ? 26 : 0) + (upper ? 26 : 0) + (digit ? 10 : 0) + (symbol ? 32 : 0);
        double bits = length * (Math.log(alphabet) / Math.log(2));
        if (bits < MIN_BITS) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "admin token is too easy to guess:"
                    + " %d characters from an alphabet of %d give about %.0f bits, at least %d are needed"
                    + " (make it longer or mix letters, digits and symbols)", length, alphabet, bits, MIN_BITS));
        }
    }

    /**
     * A new random token: 32 bytes from {@link SecureRandom}, base64url without padding, 43
     * characters of {@code [A-Za-z0-9_-]} (256 bits of randomness).
     */
    public static String generate() {
        Base64.Encoder encoder = Base64.getUrlEncoder().withoutPadding();
        while (true) {
            byte[] bytes = new byte[32];
            RANDOM.nextBytes(bytes);
            String token = encoder.encodeToString(bytes);
            try {
                requireStrong(token);
                return token;
            } catch (IllegalArgumentException unlucky) {
                // fewer than 10 different characters in 43 random ones: next to impossible, draw again
            }
        }
    }

    /**
     * The token in {@code file}: its content without surrounding white space (a final newline is
     * usual), which must pass {@link #requireStrong}. On a POSIX file system the file must be
     * readable and writable by its owner only. A file keeps the token out of properties, logs and
     * {@code ps}, which show a command line to every local user.
     *
     * @throws IllegalArgumentException saying what is wrong with the file or the token, never the token
     */
    public static String fromFile(Path file) {
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
            if (attributes.size() > MAX_FILE_BYTES) {
                throw new IllegalArgumentException(file + " is " + attributes.size() + " bytes; a token file holds"
                        + " one token of at most 256 characters");
            }
            byte[] bytes;
            try (InputStream in = Files.newInputStream(file)) {
                bytes = in.readNBytes(MAX_FILE_BYTES + 1);
            }
            String token = new String(bytes, StandardCharsets.UTF_8).strip();
            try {
                requireStrong(token);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
            }
            return token;
        } catch (IOException e) {
            throw new IllegalArgumentException(file + " cannot be read (" + e.getClass().getSimpleName() + ")", e);
        }
    }
}
