package dev.quota.core.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;

/** SHA-256 as the library uses it: API keys in hex, identities in bucket keys as 128 bits of base64url. */
public final class Hashes {

    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java runtime", e);
        }
    });

    private Hashes() {
    }

    /** The lower-case hex SHA-256 of the UTF-8 bytes of {@code text}: 64 characters. */
    public static String sha256Hex(String text) {
        return HexFormat.of().formatHex(sha256(text));
    }

    /** 128 bits of SHA-256, base64url: 22 characters of {@code [A-Za-z0-9_-]}, safe in any key. */
    public static String keyPart(String identity) {
        return B64.encodeToString(Arrays.copyOf(sha256(identity), 16));
    }

    private static byte[] sha256(String text) {
        MessageDigest digest = SHA256.get();
        digest.reset();
        return digest.digest(text.getBytes(StandardCharsets.UTF_8));
    }
}
