package dev.quota.core.config;

import static dev.quota.core.config.QuotaConfigLoaderTest.errorsOf;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Leasing;
import dev.quota.core.QuotaService;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code leasing: on|off}, global, per plan and per rule: read in both spellings, and a setting that
 * cannot work (or is neither on nor off) refused with its path, at start and on reload.
 */
class LeasingConfigTest {

    private static final String PLANS = """
            plans:
              free:
                limits: [{name: burst, capacity: 20, period: 1s}]
            """;

    @TempDir
    Path dir;

    @Test
    void withoutTheSetting_everyPlanAndRuleMayBeLeased() {
        assertThat(QuotaConfigLoader.parse(PLANS, "test.yaml").leasing()).isEqualTo(Leasing.ON);
    }

    @Test
    void offGlobally_perPlan_andPerRule_isRead_inBothSpellings() {
        assertThat(QuotaConfigLoader.parse("leasing: off\n" + PLANS, "test.yaml").leasing().enabled()).isFalse();
        assertThat(QuotaConfigLoader.parse("leasing: \"off\"\n" + PLANS, "test.yaml").leasing().enabled()).isFalse();

        Leasing leasing = QuotaConfigLoader.parse("""
                plans:
                  free:
                    leasing: off
                    limits: [{name: burst, capacity: 20, period: 1s}]
                  pro:
                    leasing: on
                    limits: [{name: burst, capacity: 200, period: 1s}]
                rules:
                  transfers:
                    leasing: off
                    shared: [{name: all, capacity: 500, period: 1s}]
                """, "test.yaml").leasing();

        assertThat(leasing).isEqualTo(new Leasing(true, Set.of("free"), Set.of("transfers")));
        assertThat(leasing.leasesPlan("pro")).isTrue();
        assertThat(leasing.leasesPlan("free")).isFalse();
        assertThat(leasing.leasesRule("transfers")).isFalse();
    }

    @Test
    void aSettingThatCannotWork_orIsNeitherOnNorOff_isRefusedWithItsPath() {
        assertThat(errorsOf("""
                leasing: sometimes
                plans:
                  free:
                    mode: shadow
                    leasing: on
                    limits: [{name: burst, capacity: 20, period: 1s}]
                rules:
                  uploads:
                    leasing: on
                    concurrency: 2
                  transfers:
                    leasing: [off]
                    shared: [{name: all, capacity: 500, period: 1s}]
                """)).containsExactlyInAnyOrder(
                "leasing: must be on or off but was \"sometimes\"",
                "plans.free.leasing: on cannot work with mode: shadow (a limit in shadow mode is never leased);"
                        + " remove one of them",
                "rules.uploads.leasing: on cannot work without limits or shared limits to lease",
                "rules.transfers.leasing: must be on or off but was a list");
    }

    @Test
    void reloadWithASettingThatCannotWork_isRefusedWithItsPath_andTheActiveSettingsStay() throws IOException {
        Path file = dir.resolve("plans.yaml");
        Files.writeString(file, "leasing: off\n" + PLANS);
        MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
        List<ConfigReloader.Result> results = new ArrayList<>();
        try (QuotaService service = QuotaService.builder().store(InMemoryStore.builder().clock(clock).build())
                .config(QuotaConfigLoader.load(file)).clock(clock).build();
             ConfigReloader reloader = ConfigReloader.watch(file, service, Duration.ofHours(1), results::add)) {
            Files.writeString(file, "mode: shadow\nleasing: on\n" + PLANS);
            reloader.poll();

            assertThat(results).hasSize(1);
            assertThat(results.get(0).applied()).isFalse();
            assertThat(results.get(0).errors()).anySatisfy(e -> assertThat(e).contains(
                    "leasing: on cannot work with mode: shadow"));
            assertThat(service.config().leasing().enabled()).isFalse();
        }
    }
}
