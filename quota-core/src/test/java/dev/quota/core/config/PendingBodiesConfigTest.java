package dev.quota.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.Identity;
import dev.quota.core.QuotaConfig;
import org.junit.jupiter.api.Test;

/** {@code identity.pendingBodies}: how many bodies one customer or address may have on their way at once. */
class PendingBodiesConfigTest {

    private static final String FREE_ONLY = """
            plans:
              free: {limits: [{name: burst, capacity: 1, period: 1s}]}
            """;

    @Test
    void withoutTheSetting_theDefaultIs16() {
        QuotaConfig config = QuotaConfigLoader.parse(FREE_ONLY, "test.yaml");

        assertThat(config.identity().pendingBodies()).isEqualTo(16).isEqualTo(Identity.DEFAULT_PENDING_BODIES);
    }

    @Test
    void setting_isRead() {
        QuotaConfig config = QuotaConfigLoader.parse("identity: {pendingBodies: 4}\n" + FREE_ONLY, "test.yaml");

        assertThat(config.identity().pendingBodies()).isEqualTo(4);
        assertThat(config.identity()).isNotEqualTo(Identity.DEFAULT)
                .isEqualTo(Identity.DEFAULT.toBuilder().missingKey(Identity.MissingKey.REJECT).pendingBodies(4).build());
    }

    @Test
    void badValues_areEachRefusedWithTheirPath() {
        for (String bad : new String[] {"0", "-1", "100001", "many", "1.5"}) {
            assertThatThrownBy(() -> QuotaConfigLoader.parse("identity: {pendingBodies: " + bad + "}\n" + FREE_ONLY,
                    "test.yaml"))
                    .as(bad).isInstanceOfSatisfying(InvalidConfigException.class, e -> assertThat(e.errors())
                            .extracting(ConfigError::path).containsExactly("identity.pendingBodies"));
        }
        assertThatThrownBy(() -> QuotaConfigLoader.parse("identity: {pendingBodies: 0}\n" + FREE_ONLY, "test.yaml"))
                .hasMessageContaining("identity.pendingBodies: must be >= 1 but was 0");
        assertThatThrownBy(() -> QuotaConfigLoader.parse("identity: {pendingBodies: 100001}\n" + FREE_ONLY, "test.yaml"))
                .hasMessageContaining("identity.pendingBodies: must be <= 100000 but was 100001");
    }

    @Test
    void inCode_outOfRange_isRefusedEchoingIt() {
        assertThatThrownBy(() -> Identity.builder().pendingBodies(0).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("pendingBodies must be 1 to 100000 but was 0");
    }
}
