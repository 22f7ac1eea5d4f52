package dev.quota.core.internal;

import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256 as the library uses it: API keys in hex, identities in bucket keys as 128 bits of base64url. */
public final class Hashes {

    private static final byte[] BASE64URL =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    /** Characters of a key part: 128 bits, six to a character. */
    public static final int PART_LENGTH = 22;
    private static final Scratch<Sha256> SHA256 = Scratch.perThread("the thread's SHA-256", Sha256::new);

    private Hashes() {
    }

    /**
     * The lower-case hex SHA-256 of the UTF-8 bytes of {@code text}: 64 characters. Hashed per
     * request (an API key); allocates the string only, for an ASCII text of up to 128 characters.
     */
    public static String sha256Hex(String text) {
        Sha256 sha = SHA256.take();
        try {
            sha.digest.reset();
            sha.update(text);
            sha.digestInto();
            byte[] hex = sha.hex;
            for (int i = 0; i < 32; i++) {
                int b = sha.hash[i] & 0xff;
                hex[2 * i] = HEX[b >>> 4];
                hex[2 * i + 1] = HEX[b & 0x0f];
            }
            return new String(hex, 0, 64, StandardCharsets.ISO_8859_1);
        } finally {
            SHA256.giveBack(sha);
        }
    }

    /** 128 bits of SHA-256, base64url: 22 characters of {@code [A-Za-z0-9_-]}, safe in any key. */
    public static String keyPart(String identity) {
        Sha256 sha = SHA256.take();
        try {
            sha.digest.update(identity.getBytes(StandardCharsets.UTF_8));
            return sha.keyPart();
        } finally {
            SHA256.giveBack(sha);
        }
    }

    /**
     * {@link #keyPart(String)} of {@code namespace + '\u0000' + id} (the same 22 characters), without
     * building that string: what a customer's bucket keys are made of, computed per decision.
     */
    public static String keyPart(String namespace, String id) {
        Sha256 sha = SHA256.take();
        try {
            sha.identity(namespace, id);
            return sha.keyPart();
        } finally {
            SHA256.giveBack(sha);
        }
    }

    /**
     * {@code head + keyPart(namespace, id) + tail} as one string, without the key part's own: a
     * customer's plan key, made per decision for a customer not seen lately. {@code head} and
     * {@code tail} are ASCII (a validated prefix and fixed punctuation).
     *
     * @throws IllegalArgumentException if {@code head} or {@code tail} is not ASCII
     */
    public static String keyWithPart(String head, String namespace, String id, String tail) {
        Sha256 sha = SHA256.take();
        try {
            sha.identity(namespace, id);
            sha.finish();
            int length = head.length() + PART_LENGTH + tail.length();
            byte[] out = length <= sha.key.length ? sha.key : new byte[length];
            int at = ascii(head, out, 0);
            System.arraycopy(sha.chars, 0, out, at, PART_LENGTH);
            ascii(tail, out, at + PART_LENGTH);
            return new String(out, 0, length, StandardCharsets.ISO_8859_1);
        } finally {
            SHA256.giveBack(sha);
        }
    }

    /** Copies ASCII {@code text} into {@code out} at {@code at}; answers the index after it. */
    private static int ascii(String text, byte[] out, int at) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c >= 0x80) {
                throw new IllegalArgumentException("a key's fixed parts must be ASCII but was \"" + text + "\"");
            }
            out[at + i] = (byte) c;
        }
        return at + text.length();
    }

    /**
     * One thread's digest and buffers: a key part allocates its string only (an ASCII identity is
     * encoded into {@link #input}, which is UTF-8 for it; any other through the JDK's encoder).
     */
    private static final class Sha256 {
        /** Identities up to this many characters are encoded into {@link #input}; longer ones by the JDK. */
        private static final int INPUT = 128;

        final MessageDigest digest;
        final byte[] hash = new byte[32];
        final byte[] chars = new byte[PART_LENGTH];
        /** Where {@link Hashes#sha256Hex} writes its 64 characters. */
        final byte[] hex = new byte[64];
        final byte[] input = new byte[INPUT];
        /** Where {@link Hashes#keyWithPart} builds a key of up to 128 characters. */
        final byte[] key = new byte[128];

        Sha256() {
            try {
                digest = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-256 is required by every Java runtime", e);
            }
        }

        /** Feeds {@code namespace}, a zero byte and {@code id} into the digest, as UTF-8. */
        void identity(String namespace, String id) {
            update(namespace);
            digest.update((byte) 0);
            update(id);
        }

        /** Feeds {@code text} as UTF-8: ASCII through {@link #input}, without an array of its own. */
        void update(String text) {
            int n = text.length();
            if (n <= INPUT) {
                int i = 0;
                while (i < n && text.charAt(i) < 0x80) {
                    input[i] = (byte) text.charAt(i);
                    i++;
                }
                if (i == n) {
                    digest.update(input, 0, n);
                    return;
                }
            }
            digest.update(text.getBytes(StandardCharsets.UTF_8));
        }

        /** Finishes the digest (which resets it) into {@link #hash}. */
        void digestInto() {
            try {
                digest.digest(hash, 0, hash.length);
            } catch (DigestException e) {
                throw new IllegalStateException("a SHA-256 digest is 32 bytes", e);
            }
        }

        /** {@link #finish}, as a string. */
        String keyPart() {
            finish();
            return new String(chars, 0, PART_LENGTH, StandardCharsets.ISO_8859_1);
        }

        /** Finishes the digest (which resets it) and encodes its first 16 bytes, base64url unpadded, into {@link #chars}. */
        void finish() {
            digestInto();
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
        }
    }
}
