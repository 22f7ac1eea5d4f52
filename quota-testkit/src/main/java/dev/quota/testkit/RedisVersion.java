package dev.quota.testkit;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The version of a redis-server binary, e.g. 7.0.15, as {@code redis-server --version} prints it.
 * Tests and the testkit compare it to switch on what a release changed: Redis 7.0 refuses
 * {@code DEBUG} unless the server was started with {@code --enable-debug-command}, which 6.2 does
 * not know.
 *
 * @param major e.g. 7
 * @param minor e.g. 0
 * @param patch e.g. 15
 */
public record RedisVersion(int major, int minor, int patch) implements Comparable<RedisVersion> {

    // "v=" then at least major.minor; the patch may be absent, and Windows builds add a fourth number
    private static final Pattern VERSION = Pattern.compile("\\bv=(\\d+)\\.(\\d+)(?:\\.(\\d+))?");

    /**
     * Checks the numbers.
     *
     * @throws IllegalArgumentException if a number is negative
     */
    public RedisVersion {
        if (major < 0 || minor < 0 || patch < 0) {
            throw new IllegalArgumentException("version numbers must be >= 0 but were " + major + "." + minor
                    + "." + patch);
        }
    }

    /**
     * Reads the version from the output of {@code redis-server --version}, e.g.
     * {@code Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=ae4d7c971a948f0} gives
     * 7.0.15; a missing patch number counts as 0, a fourth number (Windows builds: 5.0.14.1) is ignored.
     * Valkey's {@code Valkey server v=8.0.1 ...} reads the same way.
     *
     * @throws IllegalArgumentException if there is no {@code v=MAJOR.MINOR}; the message echoes the output
     */
    public static RedisVersion parse(String versionOutput) {
        Matcher m = VERSION.matcher(versionOutput);
        if (!m.find()) {
            throw new IllegalArgumentException("no \"v=MAJOR.MINOR.PATCH\" in redis-server --version output \""
                    + versionOutput.strip() + "\"");
        }
        return new RedisVersion(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                m.group(3) == null ? 0 : Integer.parseInt(m.group(3)));
    }

    /** Whether this is {@code major.minor} or later: 7.0.15 is at least 7.0 and 6.2, not 7.2. */
    public boolean isAtLeast(int major, int minor) {
        return compareTo(new RedisVersion(major, minor, 0)) >= 0;
    }

    /** Orders by major, then minor, then patch. */
    @Override
    public int compareTo(RedisVersion other) {
        int byMajor = Integer.compare(major, other.major);
        if (byMajor != 0) {
            return byMajor;
        }
        int byMinor = Integer.compare(minor, other.minor);
        return byMinor != 0 ? byMinor : Integer.compare(patch, other.patch);
    }

    /** {@code MAJOR.MINOR.PATCH}, e.g. {@code 7.0.15}. */
    @Override
    public String toString() {
        return major + "." + minor + "." + patch;
    }
}
