package dev.quota.core.internal.report;

import static dev.quota.core.Configs.greedy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Customer;
import dev.quota.core.Limit;
import dev.quota.core.LimitStatus;
import dev.quota.core.QuotaDecision;
import dev.quota.core.config.ApiKeys;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The rejection log on its own: sampling, summaries, and fingerprints under its key. */
class RejectionLogTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final RejectionLog log = new RejectionLog(clock, 20, Duration.ofSeconds(10), lines::add, () -> true);
    private final Customer alice = Customer.of("alice", "free");

    @Test
    void flood_isSampledToTheRateAndSummarised() {
        for (int i = 0; i < 100; i++) {
            log.rejected(alice, null, rejection());
        }
        assertThat(lines).hasSize(20);

        clock.advance(Duration.ofMillis(500));
        for (int i = 0; i < 100; i++) {
            log.rejected(alice, null, rejection());
        }
        // half a second brought 10 lines back; the summary waits for 10 s after the first suppressed line
        assertThat(lines).hasSize(30);

        clock.advance(Duration.ofMillis(9_500));
        log.rejected(alice, null, rejection());

        assertThat(lines).hasSize(32);
        assertThat(lines.get(30)).isEqualTo("quota.rejected.suppressed count=170 since=2026-11-29T10:00:00Z");
        assertThat(lines.get(31)).startsWith("quota.rejected customer=");

        log.flush();
        assertThat(lines).hasSize(32);
    }
    @Test
    void rateZero_logsNothing() {
        RejectionLog off = new RejectionLog(clock, 0, Duration.ofSeconds(10), lines::add, () -> true);

        off.rejected(alice, null, rejection());
        off.flush();

        assertThat(lines).isEmpty();
    }
    @Test
    void fingerprint_isStableWithinALog() {
        assertThat(log.fingerprint("203.0.113.7")).isEqualTo(log.fingerprint("203.0.113.7"))
                .isNotEqualTo(log.fingerprint("203.0.113.8"));
    }
    @Test
    void fingerprint_differsBetweenLogsWithDifferentKeys() {
        RejectionLog other = new RejectionLog(clock, 20, Duration.ofSeconds(10), lines::add, () -> true);
        RejectionLog keyedA = new RejectionLog(clock, 20, Duration.ofSeconds(10), lines::add, () -> true, key(1));
        RejectionLog keyedB = new RejectionLog(clock, 20, Duration.ofSeconds(10), lines::add, () -> true, key(2));

        assertThat(other.fingerprint("203.0.113.7")).isNotEqualTo(log.fingerprint("203.0.113.7"));
        assertThat(keyedA.fingerprint("203.0.113.7")).isNotEqualTo(keyedB.fingerprint("203.0.113.7"));
    }
    @Test
    void fingerprint_withTheSameConfiguredKey_agreesAcrossLogs() {
        RejectionLog instance1 = new RejectionLog(clock, 20, Duration.ofSeconds(10), lines::add, () -> true, key(7));
        RejectionLog instance2 = new RejectionLog(clock, 20, Duration.ofSeconds(10), lines::add, () -> true, key(7));

        assertThat(instance1.fingerprint("alice")).isEqualTo(instance2.fingerprint("alice"));
    }
    /** What broke: an unkeyed SHA-256 prefix let anyone recover an IPv4 address by hashing all 2^32. */
    @Test
    void fingerprintOfAnAddress_isNotThePlainSha256Prefix() {
        String address = "203.0.113.7";

        assertThat(log.fingerprint(address)).hasSize(12).matches("[0-9a-f]{12}")
                .isNotEqualTo(ApiKeys.sha256Hex(address).substring(0, 12));
    }

    private static byte[] key(int seed) {
        byte[] key = new byte[RejectionLog.KEY_BYTES];
        java.util.Arrays.fill(key, (byte) seed);
        return key;
    }

    private static QuotaDecision rejection() {
        Limit burst = greedy("burst", 1, 1, Duration.ofSeconds(1));
        LimitStatus status = LimitStatus.of("free-burst", burst, LimitStatus.Role.PLAN, 0, Duration.ofSeconds(1),
                Duration.ofSeconds(1));
        return QuotaDecision.rejected(status, Duration.ofSeconds(1));
    }
}
