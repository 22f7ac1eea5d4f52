package dev.quota.core.internal;

import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 as the library uses it: API keys in hex, identities in bucket keys as 128 bits of base64url. */
public final class Hashes {

    private static final byte[] BASE64URL =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".getBytes(StandardCharsets.US_ASCII);
    /** Characters of a key part: 128 bits, six to a character. */
    private static final int PART_LENGTH = 22;
    private static final ThreadLocal<Sha256> SHA256 = ThreadLocal.withInitial(Sha256::new);

    private Hashes() {
    }

    /** The lower-case hex SHA-256 of the UTF-8 bytes of {@code text}: 64 characters. */
    public static String sha256Hex(String text) {
        MessageDigest digest = SHA256.get().digest;
        digest.reset();
        return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
    }

    /** 128 bits of SHA-256, base64url: 22 characters of {@code [A-Za-z0-9_-]}, safe in any key. */
    public static String keyPart(String identity) {
        Sha256 sha = SHA256.get();
        sha.digest.update(identity.getBytes(StandardCharsets.UTF_8));
        return sha.keyPart();
    }

    /**
     * {@link #keyPart(String)} of {@code namespace + '\u0000' + id} (the same 22 characters), without
     * building that string: what a customer's bucket keys are made of, computed per decision.
     */
    public static String keyPart(String namespace, String id) {
        Sha256 sha = SHA256.get();
        sha.digest.update(namespace.getBytes(StandardCharsets.UTF_8));
        sha.digest.update((byte) 0);
        sha.digest.update(id.getBytes(StandardCharsets.UTF_8));
        return sha.keyPart();
    }

    /** One thread's digest and buffers: a key part allocates its input bytes and its string only. */
    private static final class Sha256 {
        final MessageDigest digest;
        final byte[] hash = new byte[32];
        final byte[] chars = new byte[PART_LENGTH];

        Sha256() {
            try {
                digest = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-256 is required by every Java runtime", e);
            }
        }

        /** Finishes the digest (which resets it) and encodes its first 16 bytes, base64url unpadded. */
        String keyPart() {
            try {
                digest.digest(hash, 0, hash.length);
            } catch (DigestException e) {
                throw new IllegalStateException("a SHA-256 digest is 32 bytes", e);
            }
            int c = 0;
            // five groups of three bytes make 20 characters, the sixteenth byte the last two
            for (int i = 0; i < 15; i += 3) {
                int bits = (hash[i] & 0xff) << 16 | (hash[i + 1] & 0xff) << 8 | (hash[i + 2] & 0xff);
                chars[c++] = BASE64URL[bits >>> 18];
                chars[c++] = BASE64URL[(bits >>> 12) & 0x3f];
                chars[c++] = BASE64URL[(bits >>> 6) & 0x3f];
                chars[c++] = BASE64URL[bits & 0x3f];
            }
            int last = hash[15] & 0xff;
            chars[c++] = BASE64URL[last >>> 2];
            chars[c] = BASE64URL[(last << 4) & 0x3f];
            return new String(chars, 0, PART_LENGTH, StandardCharsets.ISO_8859_1);
        }
    }
}
