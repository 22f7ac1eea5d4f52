package dev.quota.core.config;

import static dev.quota.core.config.QuotaConfigLoaderTest.errorsOf;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Concurrency;
import dev.quota.core.QuotaConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code concurrency} and {@code leaseTimeout} on plans and rules. */
class ConcurrencyConfigTest {

    @Test
    void concurrencyOnAPlanAndARule_withAndWithoutLeaseTimeout() {
        QuotaConfig config = QuotaConfigLoader.parse("""
                plans:
                  free:
                    concurrency: 10
                    limits: [{name: burst, capacity: 20, period: 1s}]
                rules:
                  transfers:
                    concurrency: 5
                  export:
                    concurrency: 2
                    leaseTimeout: 10m
                """, "test.yaml");

        assertThat(config.plans().get("free").concurrency()).isEqualTo(Concurrency.of(10));
        assertThat(config.rules().get("transfers").concurrency())
                .isEqualTo(new Concurrency(5, Duration.ofSeconds(60)));
        assertThat(config.rules().get("export").concurrency()).isEqualTo(new Concurrency(2, Duration.ofMinutes(10)));
    }

    @Test
    void withoutConcurrency_thereIsNoInFlightLimit() {
        QuotaConfig config = QuotaConfigLoader.parse("""
                plans:
                  free:
                    limits: [{name: burst, capacity: 20, period: 1s}]
                """, "test.yaml");

        assertThat(config.plans().get("free").concurrency()).isNull();
    }

    @Test
    void everyInvalidSetting_isReportedWithItsPath() {
        java.util.List<String> errors = errorsOf("""
                plans:
                  free:
                    concurrency: 0
                    limits: [{name: burst, capacity: 20, period: 1s}]
                  pro:
                    concurrency: 500
                    limits: [{name: burst, capacity: 20, period: 1s}]
                rules:
                  transfers:
                    leaseTimeout: 30s
                  export:
                    concurrency: 2
                    leaseTimeout: 500ms
                  search:
                    concurrency: five
                    leaseTimeout: soon
                """);

        assertThat(errors).hasSize(6).contains(
                "plans.free.concurrency: must be >= 1 but was 0",
                "plans.pro.concurrency: must be at most 100 but was 500",
                "rules.transfers.leaseTimeout: applies to an in-flight limit: set concurrency too",
                "rules.export.leaseTimeout: must be at least 1s but was \"500ms\"",
                "rules.search.concurrency: must be an integer but was \"five\"");
        assertThat(errors).anySatisfy(e -> assertThat(e).startsWith("rules.search.leaseTimeout: "));
    }
}
