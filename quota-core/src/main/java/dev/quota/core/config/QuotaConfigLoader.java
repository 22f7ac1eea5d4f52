package dev.quota.core.config;

import dev.quota.core.QuotaConfig;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * Reads a quota config from YAML and checks all of it, reporting every problem at once with its
 * path ({@code plans.free.limits[0].capacity: must be >= 1 but was 0}).
 *
 * <p>The format, with every key and its default:
 * <pre>
 * version: 3                      # optional integer &gt;= 1; absent: 0, the service assigns one
 * enabled: true                   # optional master switch (default true); false: nothing is limited,
 *                                 # every decision is BYPASSED (a warning says so)
 * mode: enforce                   # enforce | shadow (default enforce); shadow: limits report
 *                                 # SHADOW_REJECTED and let the request through
 * identity:                       # optional
 *   header: X-API-Key             # default X-API-Key
 *   missingKey: anonymous         # anonymous | reject; default anonymous when the plans have one
 *                                 # named anonymousPlan, else reject (401 missing-api-key)
 *   anonymousPlan: anonymous      # default anonymous; must be a plan when missingKey is anonymous
 *   trustedProxies: [10.0.0.0/8]  # default none: X-Forwarded-For is never believed; address ranges
 *                                 # whose X-Forwarded-For (and userHeader) are believed; no /0
 *   ipv6Prefix: 64                # 1..128 (default 64): anonymous IPv6 callers share a bucket per network
 *   userHeader: X-User-Id         # default none; from a trusted proxy only, names the anonymous
 *                                 # caller (customer user:&lt;value&gt; on the anonymous plan)
 *   failedKeys:                   # unknown API keys per client address before 429 (default 10 per 1m)
 *     capacity: 10                # required integer &gt;= 1
 *     period: 1m                  # required; refilled greedily: one more every period / capacity
 * plans:                          # required, at least one; names match [a-z0-9][a-z0-9_-]{0,62}
 *   free:
 *     onStoreFailure: local       # open | closed | local (default local)
 *     mode: shadow                # optional enforce | shadow; absent: the global mode
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
 *     mode: shadow                # optional enforce | shadow for the rule's own limits; absent:
 *                                 # the global mode (the cost taken from the plan follows the plan)
 * amounts:                        # optional; follow the global mode
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
 * allow:                          # optional; matching callers are never limited (BYPASSED)
 *   customers: [batch-importer]   # customer ids, 1 to 128 characters
 *   apiKeys: [9f86d0...]          # SHA-256 hex of keys listed under apiKeys
 *   cidrs: ["10.0.0.0/8", "2001:db8::/32"]  # client address ranges; no /0 (use enabled: false)
 * </pre>
 *
 * <p>Unknown keys are errors, with a suggestion when a known key is close ({@code limts}: did you
 * mean {@code limits}?), so a typo cannot silently switch a limit off. Choices such as
 * {@code refill} are case-insensitive. Also errors: {@code tokens}/{@code period} on a calendar
 * limit, {@code window}/{@code zone} on a greedy or interval one, {@code tokens} above
 * {@code capacity}, references to unknown plans or customers, a pattern matched by two rules, a
 * rule {@code cost} above every capacity of some plan (such a request could never pass there), an
 * address range that is not a literal ({@code 10.0.0.1/8} with host bits set, a host name, a
 * {@code /0}), a duplicate range, an allow-listed key hash that is not under {@code apiKeys}.
 *
 * <p>Warnings do not stop loading and go to {@link QuotaConfig#warnings()}: a limit with a longer
 * window but a smaller capacity than another in the same list (a daily 10 beside a burst of 20
 * means the burst is never usable), a rule cost above some but not all capacities of a plan,
 * {@code enabled: false}, and a {@code userHeader} without {@code trustedProxies} (it is never read).
 *
 * <p>Safety: only plain maps, lists and scalars are built; any type tag ({@code !!java.io.File})
 * is an error. Input over 1,000,000 bytes (1 MB) is refused before parsing (a file before it is
 * opened, as is anything but a regular file); more than 50 aliases
 * to maps or lists, nesting deeper than 50 levels and duplicate keys are errors.
 */
public final class QuotaConfigLoader {

    /** The largest config accepted: 1,000,000 bytes (characters, for {@link #parse(String, String)}). */
    public static final int MAX_SIZE = YamlTree.MAX_CODE_POINTS;

    private QuotaConfigLoader() {
    }

    /**
     * Reads and checks the UTF-8 file at {@code file}; errors name the file. Only a regular file
     * (or a link to one) of at most {@link #MAX_SIZE} bytes is opened: the type and the size are
     * checked first, and the read stops past the limit, so neither a FIFO, a device nor a file of
     * gigabytes can block or exhaust the caller.
     *
     * @throws InvalidConfigException if the file is too large, not a regular file, not YAML or not
     *                                a valid config
     * @throws UncheckedIOException   if the file cannot be read
     */
    public static QuotaConfig load(Path file) {
        String sourceName = file.toString();
        ConfigFile.Read read = ConfigFile.read(file, path -> { });
        if (read instanceof ConfigFile.Refused refused) {
            if (refused.cause() != null) {
                throw new UncheckedIOException("cannot read quota config " + sourceName, refused.cause());
            }
            throw new InvalidConfigException(sourceName, List.of(new ConfigError("", refused.reason())));
        }
        return parse(new ByteArrayInputStream(((ConfigFile.Content) read).bytes()), sourceName);
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
        var problems = new ConfigProblems();
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
