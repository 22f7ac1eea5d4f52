package dev.quota.core.config;

import dev.quota.core.internal.Hashes;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * API keys as the config file stores them: the lower-case hex SHA-256 of the key's UTF-8 bytes, so
 * the file never holds a usable key.
 *
 * <p>Operators add a key with the {@link #main} helper, then paste the hash under {@code apiKeys}:
 * <pre>
 * $ echo 'test' | java -cp quota-core.jar dev.quota.core.config.ApiKeys
 * 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
 * </pre>
 */
public final class ApiKeys {

    /** Longer keys are not looked up: nobody issues them, and hashing them costs the server. */
    public static final int MAX_LENGTH = 256;

    private ApiKeys() {
    }

    /**
     * The lower-case hex SHA-256 of the UTF-8 bytes of {@code apiKey}: 64 characters.
     * {@code sha256Hex("test")} is {@code 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08}.
     */
    public static String sha256Hex(String apiKey) {
        return Hashes.sha256Hex(apiKey);
    }

    /**
     * Whether {@code key} is worth looking up: 1 to 256 characters of visible ASCII
     * ({@code 0x21-0x7E}). Anything else is refused without hashing work.
     */
    public static boolean wellFormed(String key) {
        if (key.isEmpty() || key.length() > MAX_LENGTH) {
            return false;
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < 0x21 || c > 0x7E) {
                return false;
            }
        }
        return true;
    }

    /**
     * Prints the hash of each argument, one per line; with no arguments, of each non-empty line of
     * standard input (better: keys passed as arguments end up in the shell history).
     *
     * @throws IOException if standard input cannot be read
     */
    public static void main(String[] args) throws IOException {
        if (args.length > 0) {
            for (String key : args) {
                System.out.println(sha256Hex(key));
            }
            return;
        }
        var in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (!line.isEmpty()) {
                System.out.println(sha256Hex(line));
            }
        }
    }
}
