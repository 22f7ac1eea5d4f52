package dev.quota.core.config;

import static dev.quota.core.config.QuotaConfigLoaderTest.errorsOf;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.AllowList;
import dev.quota.core.Identity;
import dev.quota.core.Limit;
import dev.quota.core.Mode;
import dev.quota.core.QuotaConfig;
import dev.quota.core.Refill;
import dev.quota.core.net.Cidr;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The operations keys: enabled, mode, allow, and the identity settings for proxies and key guessing. */
class OperationsConfigTest {

    private static final String KEY = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    private static final String PLANS = """
            plans:
              anonymous:
                limits: [{name: burst, capacity: 5, period: 1m}]
              free:
                limits: [{name: burst, capacity: 20, period: 1s}]
            """;

    @Test
    void parse_everyOperationsKey_toExactValues() {
        QuotaConfig config = QuotaConfigLoader.parse("""
                enabled: false
                mode: Shadow
                identity:
                  trustedProxies: ["10.0.0.0/8", "fd00::/8"]
                  ipv6Prefix: 56
                  userHeader: X-User-Id
                  failedKeys: {capacity: 5, period: 10m}
                plans:
                  anonymous:
                    limits: [{name: burst, capacity: 5, period: 1m}]
                  free:
                    mode: enforce
                    limits: [{name: burst, capacity: 20, period: 1s}]
                rules:
                  transfers: {mode: shadow, limits: [{name: per-minute, capacity: 10, period: 1m}]}
                  export: {cost: 2}
                customers:
                  ACME: {plan: free}
                apiKeys:
                  - {sha256: %s, customer: ACME}
                allow:
                  customers: [batch-importer, "42"]
                  apiKeys: [%s]
                  cidrs: ["192.0.2.0/24", "2001:db8::/32", 198.51.100.7]
                """.formatted(KEY, KEY.toUpperCase(java.util.Locale.ROOT)), "ops.yaml");

        assertThat(config.enabled()).isFalse();
        assertThat(config.mode()).isEqualTo(Mode.SHADOW);
        assertThat(config.plans().get("free").mode()).isEqualTo(Mode.ENFORCE);
        assertThat(config.plans().get("anonymous").mode()).isNull();
        assertThat(config.modeOf(config.plans().get("anonymous"))).isEqualTo(Mode.SHADOW);
        assertThat(config.rules().get("transfers").mode()).isEqualTo(Mode.SHADOW);
        assertThat(config.rules().get("export").mode()).isNull();
        assertThat(config.identity()).isEqualTo(Identity.builder()
                .trustedProxies(List.of(Cidr.parse("10.0.0.0/8"), Cidr.parse("fd00::/8"))).ipv6Prefix(56)
                .userHeader("X-User-Id")
                .failedKeys(new Limit("failed-keys", 5, Refill.greedy(5, Duration.ofMinutes(10)))).build());
        assertThat(config.allow()).isEqualTo(new AllowList(Set.of("batch-importer", "42"), Set.of(KEY),
                List.of(Cidr.parse("192.0.2.0/24"), Cidr.parse("2001:db8::/32"), Cidr.parse("198.51.100.7/32"))));
        assertThat(config.warnings()).containsExactly("enabled: false: nothing is limited, every request is let through");
    }

    @Test
    void parse_withoutOperationsKeys_appliesDefaults() {
        QuotaConfig config = QuotaConfigLoader.parse(PLANS, "defaults.yaml");

        assertThat(config.enabled()).isTrue();
        assertThat(config.mode()).isEqualTo(Mode.ENFORCE);
        assertThat(config.allow()).isEqualTo(AllowList.NONE);
        assertThat(config.identity()).isEqualTo(Identity.DEFAULT);
        assertThat(config.identity().failedKeys())
                .isEqualTo(new Limit("failed-keys", 10, Refill.greedy(10, Duration.ofMinutes(1))));
        assertThat(config.warnings()).isEmpty();
    }

    @Test
    void parse_badTopLevelSwitches_areErrorsWithPaths() {
        assertThat(errorsOf(PLANS + """
                enabled: 1
                mode: audit
                """)).containsExactly(
                "enabled: must be true or false but was 1",
                "mode: must be one of enforce, shadow but was \"audit\"");
    }

    @Test
    void parse_badPlanAndRuleModes_areErrorsWithPaths() {
        assertThat(errorsOf("""
                identity: {missingKey: reject}
                plans:
                  free: {mode: dry-run, limits: [{name: burst, capacity: 20, period: 1s}]}
                rules:
                  export: {mode: [shadow]}
                """)).containsExactly(
                "plans.free.mode: must be one of enforce, shadow but was \"dry-run\"",
                "rules.export.mode: must be a string but was a list");
    }

    @Test
    void parse_badAllowList_reportsEveryEntryWithItsPath() {
        assertThat(errorsOf(PLANS + """
                customers:
                  ACME: {plan: free}
                apiKeys:
                  - {sha256: %s, customer: ACME}
                allow:
                  customers: ["", batch]
                  apiKeys: [abc, 2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae]
                  cidrs: ["10.0.0.1/8", "0.0.0.0/0", intranet, "192.0.2.0/24", "192.0.2.0/24", "2001:db8::/129"]
                  cidr: []
                """.formatted(KEY))).containsExactly(
                "allow: unknown key \"cidr\" (did you mean \"cidrs\"?)",
                "allow.customers[0]: customer id must be 1 to 128 characters but was 0",
                "allow.apiKeys[0]: must be 64 hex characters (the SHA-256 of the API key, see ApiKeys) but was \"abc\"",
                "allow.apiKeys[1]: no API key with this hash under apiKeys (allow-listed keys must belong to a customer)",
                "allow.cidrs[0]: network 10.0.0.1/8 has bits set past the prefix (did you mean 10.0.0.0/8?)",
                "allow.cidrs[1]: \"0.0.0.0/0\" allow-lists every caller; set enabled: false to stop limiting",
                "allow.cidrs[2]: \"intranet\" is not an address or range such as 10.0.0.0/8 or 2001:db8::/32"
                        + " (host names are not resolved)",
                "allow.cidrs[4]: duplicate range 192.0.2.0/24 (already at allow.cidrs[3])",
                "allow.cidrs[5]: prefix length must be 0 to 128 but was 129");
    }

    @Test
    void parse_badIdentitySettings_areErrorsWithPaths() {
        assertThat(errorsOf(PLANS + """
                identity:
                  trustedProxies: ["::/0", proxy.internal]
                  ipv6Prefix: 129
                  userHeader: "X User"
                  failedKeys: {capacity: 0, period: 1 min, burst: 3}
                """)).containsExactly(
                "identity.trustedProxies[0]: \"::/0\" would trust every client's X-Forwarded-For;"
                        + " list your proxies' addresses",
                "identity.trustedProxies[1]: \"proxy.internal\" is not an address or range such as 10.0.0.0/8 or"
                        + " 2001:db8::/32 (host names are not resolved)",
                "identity.ipv6Prefix: must be <= 128 but was 129",
                "identity.userHeader: must be an HTTP header name such as X-API-Key but was \"X User\"",
                "identity.failedKeys: unknown key \"burst\" (allowed: capacity, period)",
                "identity.failedKeys.capacity: must be >= 1 but was 0",
                "identity.failedKeys.period: must be a number and a unit like 15m (units ms, s, m, h, d)"
                        + " but was \"1 min\"");
    }

    @Test
    void parse_identityFailedKeysIncomplete_namesTheMissingKey() {
        assertThat(errorsOf(PLANS + """
                identity:
                  ipv6Prefix: 0
                  failedKeys: {capacity: 3}
                """)).containsExactly(
                "identity.ipv6Prefix: must be >= 1 but was 0",
                "identity.failedKeys: missing required key \"period\"");
    }

    @Test
    void parse_userHeaderWithoutTrustedProxies_warnsThatItIsNeverRead() {
        QuotaConfig config = QuotaConfigLoader.parse(PLANS + """
                identity: {userHeader: X-User-Id}
                """, "test.yaml");

        assertThat(config.identity().userHeader()).isEqualTo("X-User-Id");
        assertThat(config.warnings()).containsExactly("identity.userHeader: has no effect without"
                + " identity.trustedProxies: the header is only believed from a trusted proxy");
    }
}
