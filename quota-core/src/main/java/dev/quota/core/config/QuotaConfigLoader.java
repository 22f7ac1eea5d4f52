package dev.quota.core.config;

import dev.quota.core.QuotaConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Reads a quota config from YAML and checks all of it, reporting every problem at once with its
 * path ({@code plans.free.limits[0].capacity: must be >= 1 but was 0}).
 *
 * <p>The format, with every key and its default:
 * <pre>
 * version: 3                      # optional integer &gt;= 1; absent: 0, the service assigns one
 * identity:                       # optional
 *   header: X-API-Key             # default X-API-Key
 *   missingKey: anonymous         # anonymous | reject (default anonymous)
 *   anonymousPlan: anonymous      # default anonymous; must be a plan when missingKey is anonymous
 * plans:                          # required, at least one; names match [a-z0-9][a-z0-9_-]{0,62}
 *   free:
 *     onStoreFailure: local       # open | closed | local (default local)
 *     limits:                     # required, at least one
 *       - name: burst             # required, unique within the list, same rule as plan names
 *         capacity: 20            # required integer &gt;= 1
 *         refill: greedy          # greedy | interval | calendar (default greedy)
 *         tokens: 10              # greedy/interval: per period, 1..capacity (default capacity)
 *         period: 1s              # greedy/interval: required; a number and ms, s, m, h or d
 *       - name: daily
 *         capacity: 1000
 *         refill: calendar
 *         window: day             # calendar: required; hour | day | week | month
 *         zone: Europe/Berlin     # calendar: optional time zone, default UTC
 * rules:                          # optional
 *   transfers:
 *     match: ["POST /api/v1/transfers"]  # optional; METHOD (GET POST PUT PATCH DELETE HEAD
 *                                        # OPTIONS), a space, a path with optional {param}s
 *     cost: 1                     # optional integer &gt;= 1 taken from each plan limit, default 1
 *     limits: [...]               # optional, per customer
 *     shared: [...]               # optional, all customers together
 *     onStoreFailure: closed      # optional; absent: the plan's policy
 * amounts:                        # optional
 *   transfer-amount:
 *     onStoreFailure: closed      # default closed
 *     limits: [...]               # required, at least one
 * customers:                      # optional; ids are 1 to 128 characters
 *   SAV2001:
 *     plan: pro                   # required, a plan above
 *     multiplier: 2               # optional number &gt; 0, default 1
 * apiKeys:                        # optional
 *   - sha256: 9f86d0...           # required, 64 hex characters (see ApiKeys); unique
 *     customer: SAV2001           # required, a customer above
 * </pre>
 *
 * <p>Unknown keys are errors, with a suggestion when a known key is close ({@code limts}: did you
 * mean {@code limits}?), so a typo cannot silently switch a limit off. Choices such as
 * {@code refill} are case-insensitive. Also errors: {@code tokens}/{@code period} on a calendar
 * limit, {@code window}/{@code zone} on a greedy or interval one, {@code tokens} above
 * {@code capacity}, references to unknown plans or customers, a pattern matched by two rules, and a
 * rule {@code cost} above every capacity of some plan (such a request could never pass there).
 *
 * <p>Warnings do not stop loading and go to {@link QuotaConfig#warnings()}: a limit with a longer
 * window but a smaller capacity than another in the same list (a daily 10 beside a burst of 20
 * means the burst is never usable), and a rule cost above some but not all capacities of a plan.
 *
 * <p>Safety: only plain maps, lists and scalars are built; any type tag ({@code !!java.io.File})
 * is an error. Input over 1,000,000 bytes (1 MB) is refused before parsing; more than 50 aliases
 * to maps or lists, nesting deeper than 50 levels and duplicate keys are errors.
 */
public final class QuotaConfigLoader {

    /** The largest config accepted: 1,000,000 bytes (characters, for {@link #parse(String, String)}). */
    public static final int MAX_SIZE = YamlTree.MAX_CODE_POINTS;

    private QuotaConfigLoader() {
    }

    /**
     * Reads and checks the UTF-8 file at {@code file}; errors name the file.
     *
     * @throws InvalidConfigException if the file is too large, not YAML or not a valid config
     * @throws UncheckedIOException   if the file cannot be read
     */
    public static QuotaConfig load(Path file) {
        String sourceName = file.toString();
        try {
            long size = Files.size(file);
            if (size > MAX_SIZE) {
                throw tooLarge(sourceName, size + " bytes");
            }
            try (InputStream in = Files.newInputStream(file)) {
                return parse(in, sourceName);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read quota config " + sourceName, e);
        }
    }

    /**
     * Checks the YAML text {@code yaml}.
     *
     * @param sourceName names the config in the exception message, such as a file name
     * @throws InvalidConfigException if the text is too large, not YAML or not a valid config
     */
    public static QuotaConfig parse(String yaml, String sourceName) {
        if (yaml.length() > MAX_SIZE) {
            throw tooLarge(sourceName, yaml.length() + " characters");
        }
        String text = yaml.startsWith("\uFEFF") ? yaml.substring(1) : yaml;
        var problems = new Problems();
        Object root = YamlTree.read(text, problems);
        QuotaConfig config = root == null ? null : QuotaConfigParser.parse(root, problems);
        if (config == null || problems.hasErrors()) {
            throw new InvalidConfigException(sourceName, problems.errors());
        }
        return config;
    }

    /**
     * Reads UTF-8 YAML from {@code in} (which stays open) and checks it. Reading stops after
     * {@link #MAX_SIZE} bytes, so an oversized stream is refused without being read to the end.
     *
     * @param sourceName names the config in the exception message, such as a file name
     * @throws InvalidConfigException if the input is too large, not UTF-8, not YAML or not a valid config
     * @throws UncheckedIOException   if reading fails
     */
    public static QuotaConfig parse(InputStream in, String sourceName) {
        byte[] bytes;
        try {
            bytes = in.readNBytes(MAX_SIZE + 1);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read quota config " + sourceName, e);
        }
        if (bytes.length > MAX_SIZE) {
            throw tooLarge(sourceName, "more than " + MAX_SIZE + " bytes");
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new InvalidConfigException(sourceName, List.of(new ConfigError("", "the config is not valid UTF-8")));
        }
        return parse(text, sourceName);
    }

    private static InvalidConfigException tooLarge(String sourceName, String size) {
        return new InvalidConfigException(sourceName, List.of(new ConfigError("",
                "the config is " + size + "; the limit is " + MAX_SIZE + " (1 MB), so it was not parsed")));
    }
}
