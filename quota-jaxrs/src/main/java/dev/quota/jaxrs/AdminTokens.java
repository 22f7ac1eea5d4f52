package dev.quota.jaxrs;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Locale;

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
 * <p>Messages say which rule a token breaks and its length, never the token.
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
}
