package dev.quota.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Customer;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaListener;
import dev.quota.core.QuotaService;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.Await;
import dev.quota.testkit.MutableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigReloaderTest {

    @TempDir
    Path dir;

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final Customer alice = Customer.of("alice", "free");

    private static String config(String capacity) {
        return """
                plans:
                  anonymous:
                    limits:
                      - {name: burst, capacity: 5, period: 1m}
                  free:
                    limits:
                      - name: burst
                        capacity: %s
                        tokens: 1
                        period: 1h
                """.formatted(capacity);
    }

    private QuotaService serviceFor(Path file) {
        return QuotaService.builder().store(InMemoryStore.builder().clock(clock).build())
                .config(QuotaConfigLoader.load(file)).clock(clock).build();
    }

    @Test
    void reloadNow_withLargerLimit_appliesAndKeepsUsage() throws Exception {
        Path file = dir.resolve("plans.yaml");
        Files.writeString(file, config("100"));
        QuotaService service = serviceFor(file);
        for (int i = 0; i < 60; i++) {
            service.decide(alice, null);
        }
        try (ConfigReloader reloader = ConfigReloader.watch(file, service, Duration.ofHours(1), r -> { })) {
            Files.writeString(file, config("200"));

            ConfigReloader.Result result = reloader.reloadNow();

            assertThat(result.applied()).isTrue();
            assertThat(service.decide(alice, null).limits().get(0).remaining()).isEqualTo(139);
        }
    }

    @Test
    void reloadNow_withBadEdit_keepsPreviousConfigAndReportsEveryError() throws Exception {
        Path file = dir.resolve("plans.yaml");
        Files.writeString(file, config("100"));
        QuotaService service = serviceFor(file);
        long before = service.config().version();
        try (ConfigReloader reloader = ConfigReloader.watch(file, service, Duration.ofHours(1), r -> { })) {
            Files.writeString(file, config("0").replace("period: 1h", "period: 1 hour"));

            ConfigReloader.Result result = reloader.reloadNow();

            assertThat(result.applied()).isFalse();
            assertThat(result.errors()).hasSize(2);
            assertThat(result.errors().get(0)).isEqualTo("plans.free.limits[0].capacity: must be >= 1 but was 0");
            assertThat(result.errors().get(1)).startsWith("plans.free.limits[0].period: ");
            assertThat(service.config().version()).isEqualTo(before);
            assertThat(service.decide(alice, null).limits().get(0).limit().capacity()).isEqualTo(100);
        }
    }

    @Test
    void watch_appliesAnEditWithinTwoSeconds() throws Exception {
        Path file = dir.resolve("plans.yaml");
        Files.writeString(file, config("100"));
        QuotaService service = serviceFor(file);
        List<ConfigReloader.Result> results = new CopyOnWriteArrayList<>();
        ConfigReloader reloader = ConfigReloader.watch(file, service, Duration.ofMillis(100), results::add);
        try {
            Files.writeString(file, config("300"));

            Await.until(Duration.ofSeconds(2), () -> !results.isEmpty(), () -> "the reloader to apply the edit");

            assertThat(results).hasSize(1);
            assertThat(results.get(0).applied()).isTrue();
            assertThat(service.config().plans().get("free").limits().get(0).capacity()).isEqualTo(300);
        } finally {
            reloader.close();
        }
    }

    private static String transfersIn(String mode) {
        return """
                plans:
                  anonymous:
                    limits:
                      - {name: burst, capacity: 5, period: 1m}
                  free:
                    limits:
                      - {name: burst, capacity: 100, tokens: 1, period: 1h}
                rules:
                  transfers:
                    mode: %s
                    limits:
                      - {name: per-minute, capacity: 1, period: 1m}
                """.formatted(mode);
    }

    @Test
    void reloadNow_switchingRuleFromShadowToEnforce_rejectsFromTheNextRequest() throws Exception {
        Path file = dir.resolve("plans.yaml");
        Files.writeString(file, transfersIn("shadow"));
        List<String> reloads = new CopyOnWriteArrayList<>();
        QuotaService service = QuotaService.builder().store(InMemoryStore.builder().clock(clock).build())
                .config(QuotaConfigLoader.load(file)).clock(clock)
                .listener(new QuotaListener() {
                    @Override
                    public void onReload(boolean applied, long version) {
                        reloads.add(applied ? "applied" : "rejected");
                    }
                }).build();
        service.decide(alice, "transfers");
        assertThat(service.decide(alice, "transfers").outcome()).isEqualTo(QuotaDecision.Outcome.SHADOW_REJECTED);

        try (ConfigReloader reloader = ConfigReloader.watch(file, service, Duration.ofHours(1), r -> { })) {
            Files.writeString(file, transfersIn("enforce"));
            assertThat(reloader.reloadNow().applied()).isTrue();

            QuotaDecision enforced = service.decide(alice, "transfers");

            assertThat(enforced.outcome()).isEqualTo(QuotaDecision.Outcome.REJECTED);
            assertThat(enforced.violated().policy()).isEqualTo("transfers-per-minute");

            Files.writeString(file, transfersIn("audit"));
            assertThat(reloader.reloadNow().errors())
                    .containsExactly("rules.transfers.mode: must be one of enforce, shadow but was \"audit\"");
            assertThat(service.decide(alice, "transfers").outcome()).isEqualTo(QuotaDecision.Outcome.REJECTED);
        }
        assertThat(reloads).containsExactly("applied", "rejected");
    }
}
