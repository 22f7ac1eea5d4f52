package dev.quota.core;

import static dev.quota.core.Configs.config;
import static dev.quota.core.Configs.greedy;
import static dev.quota.core.Configs.plan;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.internal.report.RejectionLog;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The rejection log as the service writes it: what each rejection logs, and what closing it writes. */
class ServiceRejectionLogTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final RejectionLog log = new RejectionLog(clock, 20, Duration.ofSeconds(10), lines::add, () -> true);
    private final Customer alice = Customer.of("alice", "free");

    private QuotaService service(QuotaConfig config) {
        return QuotaService.builder().store(InMemoryStore.builder().clock(clock).build()).config(config).clock(clock)
                .rejectionLog(log).build();
    }
    @Test
    void rejection_isOneKeyValueLineWithCustomerFingerprintOnly() {
        QuotaService service = service(config(plan("free", greedy("burst", 1, 10, Duration.ofSeconds(1)))));
        service.decide(alice, null);

        service.decide(alice, null);

        assertThat(lines).containsExactly("quota.rejected customer=" + log.fingerprint(alice)
                + " plan=free rule=- policy=free-burst retry_after_ms=100 outcome=REJECTED");
        assertThat(log.fingerprint(alice)).hasSize(12).matches("[0-9a-f]{12}").isNotEqualTo("alice");
    }
    @Test
    void customerNamedAfterAnAddress_andTheAnonymousCallerThere_haveDifferentFingerprints() {
        // the two were told apart in the store but logged under the same fingerprint
        QuotaService service = service(config(plan("free", greedy("burst", 1, 10, Duration.ofSeconds(1)))));
        Customer configured = Customer.of("ip:203.0.113.7", "free");
        Customer anonymous = Customer.builder("ip:203.0.113.7", "free").kind(Customer.Kind.ADDRESS).build();
        for (Customer customer : List.of(configured, anonymous)) {
            service.decide(customer, null);
            service.decide(customer, null);
        }

        assertThat(lines).hasSize(2);
        assertThat(lines.get(0).split(" ", -1)[1]).startsWith("customer=")
                .isNotEqualTo(lines.get(1).split(" ", -1)[1]);
    }
    @Test
    void amountRejection_namesThePolicyButNoAmount() {
        AmountLimits amounts = AmountLimits.of("transfer-amount",
                List.of(greedy("daily", 100_000, 100_000, Duration.ofDays(1))), FailurePolicy.CLOSED);
        QuotaService service = service(config(List.of(plan("free", greedy("burst", 1, 1, Duration.ofHours(1)))),
                List.of(), List.of(amounts)));
        service.consumeAmount(alice, new Amount("transfer-amount", "EUR", 98_765));

        service.consumeAmount(alice, new Amount("transfer-amount", "EUR", 54_321));

        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).contains("policy=transfer-amount-daily", "rule=transfer-amount", "outcome=REJECTED")
                .doesNotContain("98765", "54321", "alice", "EUR");
    }
    @Test
    void failedKeyRejection_logsAFingerprintOfTheAddress() {
        QuotaService service = service(config(plan("free", greedy("burst", 1, 1, Duration.ofHours(1)))));
        for (int i = 0; i < 11; i++) {
            service.identify(RequestFacts.of(Credential.apiKey("guess-" + i),
                    dev.quota.core.net.ClientAddresses.parse("203.0.113.7")));
        }

        assertThat(lines).containsExactly("quota.rejected client=" + log.fingerprint("203.0.113.7")
                + " policy=identity-failed-keys retry_after_ms=6000 outcome=REJECTED");
    }
    @Test
    void close_writesTheSummaryOfSuppressedLines() {
        QuotaService service = service(config(plan("free", greedy("burst", 1, 1, Duration.ofHours(1)))));
        for (int i = 0; i < 26; i++) {
            service.decide(alice, null);
        }

        service.close();

        assertThat(lines).hasSize(21);
        assertThat(lines.get(20)).isEqualTo("quota.rejected.suppressed count=5 since=2026-11-29T10:00:00Z");
    }
    @Test
    void builder_withRejectionLogKey_fingerprintsUnderThatKey() {
        QuotaService service = QuotaService.builder().store(InMemoryStore.builder().clock(clock).build())
                .config(config(plan("free", greedy("burst", 1, 1, Duration.ofHours(1))))).clock(clock)
                .rejectionLogKey(key(9)).build();

        String log = capturingStderr(() -> {
            service.decide(alice, null);
            service.decide(alice, null);
        });

        String expected = new RejectionLog(clock, 20, Duration.ofSeconds(10), line -> { }, () -> true, key(9))
                .fingerprint(alice);
        assertThat(log).contains("quota.rejected customer=" + expected + " plan=free rule=- policy=free-burst");
    }
    @Test
    void builder_rejectionLogKey_shorterThan32Bytes_isRefusedWithItsLengthOnly() {
        assertThatThrownBy(() -> QuotaService.builder().rejectionLogKey(new byte[16]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("rejectionLogKey must be at least 32 bytes but was 16 bytes");
    }
    /** Runs {@code action} with System.err captured; slf4j-simple looks System.err up per line. */
    private static String capturingStderr(Runnable action) {
        java.io.PrintStream original = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setErr(original);
        }
        return captured.toString(java.nio.charset.StandardCharsets.UTF_8);
    }
    private static byte[] key(int seed) {
        byte[] key = new byte[RejectionLog.KEY_BYTES];
        java.util.Arrays.fill(key, (byte) seed);
        return key;
    }
}
