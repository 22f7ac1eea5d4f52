package dev.quota.core.internal.report;

import dev.quota.core.Customer;
import dev.quota.core.QuotaDecision;
import dev.quota.core.internal.LogThrottle;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One INFO line per rejection on the logger {@value #LOGGER}, in key=value form for log search:
 * <pre>
 * quota.rejected customer=2bd806c97f0e plan=free rule=- policy=free-burst retry_after_ms=100 outcome=REJECTED
 * </pre>
 * The customer (or the client address of a failed-key block) is a fingerprint: the first 12 hex
 * digits of an HMAC-SHA256 of its id under a key of this log. The key is 32 random bytes made when
 * the log is created, so the same caller has the same fingerprint for as long as the process runs
 * and a different one in every other process; without the key, the fingerprint of an IPv4 address
 * cannot be found by hashing all 2^32 addresses, as an unkeyed hash could. A key configured with
 * {@link dev.quota.core.QuotaServiceBuilder#rejectionLogKey} makes fingerprints agree across instances and
 * restarts, and anyone who holds it can test guesses again. The log holds neither an id, an API
 * key nor a client address; amount rejections name the policy, never an amount.
 *
 * <p>Sampled so a flood cannot flood the log: at most {@code perSecond} lines per second (a
 * {@link LogThrottle}, burst {@code perSecond}); lines beyond that are counted and reported as
 * {@code quota.rejected.suppressed count=980 since=2026-11-29T10:00:00Z} with the next rejection
 * at least {@code summaryEvery} after the first suppressed one, and on close.
 */
public final class RejectionLog {

    /** The logger name. */
    static final String LOGGER = "dev.quota.rejections";
    /** Bytes of the random key made for each log: 32, as many as HMAC-SHA256's output. */
    public static final int KEY_BYTES = 32;
    private static final String HMAC = "HmacSHA256";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final int perSecond;
    private final Consumer<String> sink;
    private final BooleanSupplier enabled;
    private final SecretKeySpec key;
    private final @Nullable LogThrottle throttle;

    /** Logs to {@value #LOGGER} at INFO, fingerprints under a random key. */
    public static RejectionLog toSlf4j(Clock clock, int perSecond) {
        return toSlf4j(clock, perSecond, randomKey());
    }

    /** Logs to {@value #LOGGER} at INFO, fingerprints under {@code key}. */
    public static RejectionLog toSlf4j(Clock clock, int perSecond, byte[] key) {
        Logger logger = LoggerFactory.getLogger(LOGGER);
        return new RejectionLog(clock, perSecond, Duration.ofSeconds(10), logger::info, logger::isInfoEnabled, key);
    }

    /**
     * @param perSecond    lines per second, 0 to log none
     * @param summaryEvery the least time between a first suppressed line and its summary
     */
    public RejectionLog(Clock clock, int perSecond, Duration summaryEvery, Consumer<String> sink, BooleanSupplier enabled) {
        this(clock, perSecond, summaryEvery, sink, enabled, randomKey());
    }

    /** As above, with fingerprints under {@code key} (at least one byte). */
    public RejectionLog(Clock clock, int perSecond, Duration summaryEvery, Consumer<String> sink, BooleanSupplier enabled,
                 byte[] key) {
        this.perSecond = perSecond;
        this.sink = sink;
        this.enabled = enabled;
        this.key = new SecretKeySpec(key.clone(), HMAC);
        this.throttle = perSecond == 0 ? null : new LogThrottle(clock, perSecond, perSecond, summaryEvery);
    }

    /**
     * A request or amount decision that was rejected or shadow-rejected; {@code limits} is the
     * rule's or the amount limits' name (the line's {@code rule} field), or null for the plan alone.
     */
    public void rejected(Customer customer, @Nullable String limits, QuotaDecision decision) {
        if (perSecond == 0 || !enabled.getAsBoolean()) {
            return;
        }
        offer(() -> "quota.rejected customer=" + fingerprint(customer) + " plan=" + customer.plan()
                + " rule=" + (limits == null ? "-" : limits) + " policy=" + policy(decision)
                + " retry_after_ms=" + ceilMillis(decision.retryAfter()) + " outcome=" + decision.outcome());
    }

    /** A client address blocked for failed API-key lookups. */
    public void failedKey(String addressGroup, QuotaDecision decision) {
        if (perSecond == 0 || !enabled.getAsBoolean()) {
            return;
        }
        offer(() -> "quota.rejected client=" + fingerprint(addressGroup) + " policy=" + policy(decision)
                + " retry_after_ms=" + ceilMillis(decision.retryAfter()) + " outcome=" + decision.outcome());
    }

    /** Writes the summary of lines suppressed so far, if any. */
    public void flush() {
        if (throttle != null) {
            writeSummary(throttle.flush());
        }
    }

    private void offer(Supplier<String> line) {
        if (throttle == null) {
            return;
        }
        LogThrottle.Permit permit = throttle.offer();
        writeSummary(permit.summary());
        if (permit.write()) {
            sink.accept(line.get());
        }
    }

    private void writeSummary(LogThrottle.@Nullable Summary summary) {
        if (summary != null) {
            sink.accept("quota.rejected.suppressed count=" + summary.count() + " since=" + summary.since());
        }
    }

    private static String policy(QuotaDecision decision) {
        return decision.violated() == null ? "-" : decision.violated().policy();
    }

    private static long ceilMillis(Duration duration) {
        long millis = duration.toMillis();
        return Duration.ofMillis(millis).equals(duration) ? millis : millis + 1;
    }

    /**
     * The fingerprint of a customer: of its id within its kind, so that a configured customer named
     * {@code ip:203.0.113.7} and the anonymous caller at 203.0.113.7 are told apart, as their buckets are.
     */
    public String fingerprint(Customer customer) {
        return fingerprint(customer.kind().name() + '\u0000' + customer.id());
    }

    /**
     * The first 12 hex digits of the HMAC-SHA256 of {@code id} under this log's key: enough to
     * follow one caller through the log, not to recover it.
     */
    public String fingerprint(String id) {
        Objects.requireNonNull(id, "id");
        byte[] mac;
        try {
            // a Mac per line: lines are rate-limited, and a Mac is not thread-safe
            Mac hmac = Mac.getInstance(HMAC);
            hmac.init(key);
            mac = hmac.doFinal(id.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 is required by every Java runtime", e);
        }
        return HexFormat.of().formatHex(mac, 0, 6);
    }

    private static byte[] randomKey() {
        byte[] key = new byte[KEY_BYTES];
        RANDOM.nextBytes(key);
        return key;
    }
}
