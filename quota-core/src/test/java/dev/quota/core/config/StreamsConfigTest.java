package dev.quota.core.config;

import static dev.quota.core.config.QuotaConfigLoaderTest.errorsOf;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.QuotaService;
import dev.quota.core.Streams;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Section {@code streams}: its defaults, its settings, and every bad value refused with its path, at start and on reload. */
class StreamsConfigTest {

    private static final String PLANS = """
            plans:
              free:
                limits: [{name: burst, capacity: 20, period: 1s}]
            """;

    @TempDir
    Path dir;

    @Test
    void withoutTheSection_streamsHaveTheDefaults() {
        assertThat(QuotaConfigLoader.parse(PLANS, "test.yaml").streams()).isEqualTo(new Streams(1_000, 0));
    }

    @Test
    void maxBatchAndDebtCap_areRead() {
        assertThat(QuotaConfigLoader.parse(PLANS + "streams: {maxBatch: 50, debtCap: 25}\n", "test.yaml").streams())
                .isEqualTo(new Streams(50, 25));
    }

    @Test
    void everyBadSetting_isReportedWithItsPath() {
        assertThat(errorsOf(PLANS + "streams: {maxBatch: 0, debtCap: -1, batch: 10}\n")).containsExactlyInAnyOrder(
                "streams.maxBatch: must be >= 1 but was 0",
                "streams.debtCap: must be >= 0 but was -1",
                "streams: unknown key \"batch\" (allowed: maxBatch, debtCap)");
        assertThat(errorsOf(PLANS + "streams: {debtCap: lots}\n"))
                .containsExactly("streams.debtCap: must be an integer but was \"lots\"");
    }

    @Test
    void reloadWithABadSetting_isRefusedWithItsPath_andTheActiveSettingsStay() throws IOException {
        Path file = dir.resolve("plans.yaml");
        Files.writeString(file, PLANS + "streams: {debtCap: 5}\n");
        MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
        List<ConfigReloader.Result> results = new ArrayList<>();
        try (QuotaService service = QuotaService.builder().store(InMemoryStore.builder().clock(clock).build())
                .config(QuotaConfigLoader.load(file)).clock(clock).build();
             ConfigReloader reloader = ConfigReloader.watch(file, service, Duration.ofHours(1), results::add)) {
            Files.writeString(file, PLANS + "streams: {debtCap: -5}\n");
            reloader.poll();

            assertThat(results).hasSize(1);
            assertThat(results.get(0).applied()).isFalse();
            assertThat(results.get(0).errors()).anySatisfy(
                    e -> assertThat(e).contains("streams.debtCap: must be >= 0 but was -5"));
            assertThat(service.config().streams()).isEqualTo(new Streams(1_000, 5));
        }
    }
}
