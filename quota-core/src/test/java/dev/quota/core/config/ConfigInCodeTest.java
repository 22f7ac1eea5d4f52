package dev.quota.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Identity;
import dev.quota.core.Limit;
import dev.quota.core.LimitStatus;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.Refill;
import dev.quota.core.net.Cidr;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The config built in code, as docs/configuration.md "A config in code" shows it. */
class ConfigInCodeTest {

    /** The file of "Customers and API keys", with the trusted proxy of the code example. */
    private static final String FILE = """
            identity:
              trustedProxies: [10.0.0.0/8]
            plans:
              pro:
                limits:
                  - {name: burst, capacity: 100, tokens: 50, period: 1s}
            customers:
              SAV2001:
                plan: pro
                multiplier: 2
            apiKeys:
              - sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
                customer: SAV2001
            """;

    private static QuotaConfig documented() {
        return QuotaConfig.builder()
                .identity(Identity.builder().trustedProxies(List.of(Cidr.parse("10.0.0.0/8")))
                        .missingKey(Identity.MissingKey.REJECT).build())
                .plan(Plan.of("pro", List.of(new Limit("burst", 100, Refill.greedy(50, Duration.ofSeconds(1)))),
                        FailurePolicy.LOCAL))
                .customer(Customer.of("SAV2001", "pro", 2.0))
                .apiKey(ApiKeys.sha256Hex("test"), "SAV2001")
                .build();
    }

    @Test
    void documentedBuilder_equalsWhatTheLoaderReadsFromTheFile() {
        QuotaConfig loaded = QuotaConfigLoader.parse(FILE, "plans.yaml");

        assertThat(documented()).isEqualTo(loaded).hasSameHashCodeAs(loaded);
        assertThat(documented().customerForKeyHash(ApiKeys.sha256Hex("test"))).isEqualTo(loaded.customers().get("SAV2001"));
    }

    @Test
    void toBuilder_keepsEverySetting_andChangesOnlyWhatIsSet() {
        QuotaConfig config = documented();

        assertThat(config.toBuilder().build()).isEqualTo(config);
        QuotaConfig disabled = config.toBuilder().enabled(false).build();
        assertThat(disabled.enabled()).isFalse();
        assertThat(disabled.toBuilder().enabled(true).build()).isEqualTo(config);
        assertThat(config.identity().toBuilder().build()).isEqualTo(config.identity());
        assertThat(config.identity().toBuilder().ipv6Prefix(48).build()).isNotEqualTo(config.identity());
    }

    @Test
    void build_customerOnMissingPlan_isRefusedNamingIt() {
        assertThatThrownBy(() -> QuotaConfig.builder().customer(Customer.of("acme", "gold")).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("customer acme is on unknown plan gold");
    }

    @Test
    void build_ipv6PrefixOutOfRange_isRefusedEchoingIt() {
        Identity.Builder identity = Identity.builder().ipv6Prefix(129);

        assertThatThrownBy(identity::build).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ipv6Prefix must be 1 to 128 but was 129");
    }

    @ParameterizedTest
    @CsvSource({"PLAN, true", "RULE, true", "FAILED_KEYS, true", "SHARED, false", "AMOUNT, false"})
    void limitStatus_isAdvertised_onlyForTheCallersOwnRequestLimits(LimitStatus.Role role, boolean advertised) {
        LimitStatus status = LimitStatus.of("p-l", new Limit("l", 10, Refill.greedy(10, Duration.ofSeconds(1))), role,
                3, Duration.ofMillis(700), Duration.ZERO);

        assertThat(status.advertised()).isEqualTo(advertised);
        assertThat(status.role()).isEqualTo(role);
    }
}
