package dev.quota.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Identity;
import dev.quota.core.QuotaConfig;
import org.junit.jupiter.api.Test;

/**
 * What a config says about requests without an API key: limited on the anonymous plan when there
 * is one, 401 when there is none and the file says nothing about them.
 */
class AnonymousCallersConfigTest {

    private static final String FREE_ONLY = """
            plans:
              free: {limits: [{name: burst, capacity: 1, period: 1s}]}
            """;

    @Test
    void noAnonymousPlanAndNoIdentitySection_rejectsRequestsWithoutAKey() {
        QuotaConfig config = QuotaConfigLoader.parse(FREE_ONLY, "test.yaml");

        assertThat(config.identity().missingKey()).isEqualTo(Identity.MissingKey.REJECT);
        assertThat(config.warnings()).isEmpty();
    }

    @Test
    void noAnonymousPlan_andAnIdentitySectionSilentOnAnonymousCallers_rejectsThem() {
        QuotaConfig config = QuotaConfigLoader.parse("identity: {header: X-Key}\n" + FREE_ONLY, "test.yaml");

        assertThat(config.identity().missingKey()).isEqualTo(Identity.MissingKey.REJECT);
        assertThat(config.identity().header()).isEqualTo("X-Key");
    }

    @Test
    void planNamedAnonymous_limitsRequestsWithoutAKeyOnIt() {
        QuotaConfig config = QuotaConfigLoader.parse(FREE_ONLY
                + "  anonymous: {limits: [{name: burst, capacity: 5, period: 1m}]}\n", "test.yaml");

        assertThat(config.identity().missingKey()).isEqualTo(Identity.MissingKey.ANONYMOUS);
        assertThat(config.identity().anonymousPlan()).isEqualTo("anonymous");
    }

    @Test
    void missingKeyAnonymousWithoutThePlan_isAnErrorNamingTheFix() {
        assertThat(QuotaConfigLoaderTest.errorsOf("identity: {missingKey: anonymous}\n" + FREE_ONLY)).containsExactly(
                "identity.anonymousPlan: unknown plan \"anonymous\" (known: free)"
                        + "; add that plan or set identity.missingKey to reject");
    }

    @Test
    void anonymousPlanNamedButMissing_isAnError() {
        assertThat(QuotaConfigLoaderTest.errorsOf("identity: {anonymousPlan: guests}\n" + FREE_ONLY)).containsExactly(
                "identity.anonymousPlan: unknown plan \"guests\" (known: free)"
                        + "; add that plan or set identity.missingKey to reject");
    }

    @Test
    void planNamedAlmostAnonymous_rejectsWithAWarningThatSuggestsIt() {
        QuotaConfig config = QuotaConfigLoader.parse(FREE_ONLY
                + "  anonymus: {limits: [{name: burst, capacity: 5, period: 1m}]}\n", "test.yaml");

        assertThat(config.identity().missingKey()).isEqualTo(Identity.MissingKey.REJECT);
        assertThat(config.warnings()).containsExactly("identity.anonymousPlan: no plan \"anonymous\", so requests"
                + " without an API key get 401 (did you mean plan \"anonymus\"? name it anonymous or set"
                + " identity.anonymousPlan)");
    }
}
