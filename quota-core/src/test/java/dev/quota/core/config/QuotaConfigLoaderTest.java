package dev.quota.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quota.core.AllowList;
import dev.quota.core.AmountLimits;
import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Identity;
import dev.quota.core.Limit;
import dev.quota.core.Mode;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.Refill;
import dev.quota.core.RouteMatch;
import dev.quota.core.Rule;
import dev.quota.core.net.Cidr;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class QuotaConfigLoaderTest {

    static Path resource(String name) {
        try {
            return Path.of(QuotaConfigLoaderTest.class.getResource("/config/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static List<String> errorsOf(String yaml) {
        InvalidConfigException e = catchThrowableOfType(InvalidConfigException.class,
                () -> QuotaConfigLoader.parse(yaml, "test.yaml"));
        assertThat(e).as("expected the config to be refused").isNotNull();
        return e.errors().stream().map(ConfigError::toString).toList();
    }

    private static Limit greedy(String name, long capacity, long tokens, Duration period) {
        return new Limit(name, capacity, Refill.greedy(tokens, period));
    }

    private static Limit calendar(String name, long capacity, ChronoUnit unit, ZoneId zone) {
        return new Limit(name, capacity, Refill.calendar(unit, zone));
    }

    @Test
    void load_validFile_parsesEveryFeatureToExactValues() {
        QuotaConfig config = QuotaConfigLoader.load(resource("valid.yaml"));

        assertThat(config.version()).isEqualTo(3);
        assertThat(config.enabled()).isTrue();
        assertThat(config.mode()).isEqualTo(Mode.ENFORCE);
        assertThat(config.identity()).isEqualTo(Identity.builder().header("X-Bank-Key").anonymousPlan("guest")
                .trustedProxies(List.of(Cidr.parse("10.0.0.0/8"), Cidr.parse("fd00::/8"))).ipv6Prefix(56)
                .userHeader("X-User-Id").failedKeys(greedy("failed-keys", 5, 5, Duration.ofMinutes(10))).build());
        assertThat(config.plans()).containsOnlyKeys("guest", "free", "pro");
        assertThat(config.plans().get("guest")).isEqualTo(Plan.builder("guest")
                .limits(List.of(greedy("burst", 5, 5, Duration.ofMinutes(1)))).onStoreFailure(FailurePolicy.CLOSED)
                .mode(Mode.SHADOW).build());
        assertThat(config.plans().get("free")).isEqualTo(Plan.of("free", List.of(
                greedy("burst", 20, 10, Duration.ofSeconds(1)),
                new Limit("quarter", 300, Refill.interval(300, Duration.ofMinutes(15))),
                calendar("daily", 1000, ChronoUnit.DAYS, ZoneId.of("Europe/Berlin"))), FailurePolicy.LOCAL));
        assertThat(config.plans().get("pro")).isEqualTo(Plan.of("pro", List.of(
                greedy("burst", 100, 50, Duration.ofMillis(500)),
                calendar("weekly", 50_000, ChronoUnit.WEEKS, ZoneOffset.UTC),
                calendar("monthly", 150_000, ChronoUnit.MONTHS, ZoneId.of("America/New_York"))), FailurePolicy.OPEN));

        assertThat(config.rules()).containsOnlyKeys("transfers", "export", "annotated");
        assertThat(config.rules().get("transfers")).isEqualTo(Rule.builder("transfers")
                .matches(List.of(RouteMatch.parse("POST /api/v1/transfers"),
                        RouteMatch.parse("PUT /api/v1/transfers/{id}")))
                .cost(2).perCustomer(List.of(greedy("per-minute", 10, 10, Duration.ofMinutes(1))))
                .shared(List.of(greedy("global", 500, 250, Duration.ofSeconds(1)))).onStoreFailure(FailurePolicy.CLOSED)
                .build());
        assertThat(config.rules().get("export")).isEqualTo(Rule.builder("export")
                .matches(List.of(RouteMatch.parse("GET /api/v1/accounts/{accountId}/export"))).cost(5).mode(Mode.SHADOW)
                .build());
        assertThat(config.rules().get("annotated")).isEqualTo(Rule.builder("annotated").build());

        assertThat(config.amounts()).isEqualTo(Map.of(
                "transfer-amount", AmountLimits.of("transfer-amount", List.of(
                        calendar("hourly", 250_000, ChronoUnit.HOURS, ZoneOffset.UTC),
                        calendar("daily", 1_000_000, ChronoUnit.DAYS, ZoneId.of("Europe/Berlin"))), FailurePolicy.CLOSED),
                "fx-amount", AmountLimits.of("fx-amount", List.of(
                        new Limit("weekly", 7_000_000, Refill.interval(7_000_000, Duration.ofDays(7)))), FailurePolicy.LOCAL)));

        assertThat(config.customers()).isEqualTo(Map.of(
                "SAV2001", Customer.of("SAV2001", "pro", 2.0),
                "acme corp", Customer.of("acme corp", "free", 0.5),
                "2024", Customer.of("2024", "free", 1.0)));
        assertThat(config.apiKeys()).isEqualTo(Map.of(
                "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "SAV2001",
                "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae", "acme corp",
                "fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9", "2024"));
        assertThat(config.customerForKeyHash(ApiKeys.sha256Hex("test"))).isEqualTo(Customer.of("SAV2001", "pro", 2.0));
        assertThat(config.allow()).isEqualTo(new AllowList(Set.of("batch-importer"),
                Set.of("2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"),
                List.of(Cidr.parse("192.0.2.0/24"), Cidr.parse("2001:db8::/32"))));
        assertThat(config.warnings()).isEmpty();
    }

    @Test
    void parse_minimalFile_appliesEveryDefault() {
        QuotaConfig config = QuotaConfigLoader.parse("""
                plans:
                  anonymous:
                    limits:
                      - name: burst
                        capacity: 20
                        period: 1s
                      - name: daily
                        capacity: 1000
                        refill: calendar
                        window: day
                """, "minimal.yaml");

        assertThat(config.version()).isZero();
        assertThat(config.identity()).isEqualTo(Identity.DEFAULT);
        assertThat(config.plans()).isEqualTo(Map.of("anonymous", Plan.of("anonymous", List.of(
                greedy("burst", 20, 20, Duration.ofSeconds(1)),
                calendar("daily", 1000, ChronoUnit.DAYS, ZoneOffset.UTC)), FailurePolicy.LOCAL)));
        assertThat(config.rules()).isEmpty();
        assertThat(config.amounts()).isEmpty();
        assertThat(config.customers()).isEmpty();
        assertThat(config.apiKeys()).isEmpty();
    }

    @Test
    void load_brokenFile_reportsEveryErrorWithItsPath() {
        InvalidConfigException e = catchThrowableOfType(InvalidConfigException.class,
                () -> QuotaConfigLoader.load(resource("broken.yaml")));

        assertThat(e.errors()).map(ConfigError::toString).containsExactly(
                "version: must be >= 1 but was 0",
                "plans.free: unknown key \"limts\" (did you mean \"limits\"?)",
                "plans.free.limits[0].capacity: must be >= 1 but was 0",
                "plans.free.limits[1].name: duplicate limit name \"burst\" (also at plans.free.limits[0].name)",
                "plans.free.limits[1].capacity: must be an integer but was \"twenty\"",
                "plans.free.limits[1].period: unknown unit \"mins\" (use ms, s, m, h, d)",
                "plans.free.limits[2].tokens: not allowed with refill calendar"
                        + " (the whole capacity returns at each window start)",
                "plans.free.limits[2].window: must be one of hour, day, week, month but was \"fortnight\"",
                "plans.free.limits[2].zone: unknown time zone \"Mars/Olympus\" (use a region such as Europe/Berlin, or UTC)",
                "plans.free.limits[3]: missing required key \"name\"",
                "plans.free.limits[3].window: only allowed with refill calendar, not greedy",
                "plans.free.limits[3].tokens: must be <= capacity (5) but was 6",
                "plans.free.limits[3]: missing required key \"period\"",
                "plans.Pro: plan name must match [a-z0-9][a-z0-9_-]{0,62}",
                "identity.anonymousPlan: unknown plan \"guest\" (known: free, pro)"
                        + "; add that plan or set identity.missingKey to reject",
                "rules.export.match[1]: must be \"METHOD /path\" with METHOD one of GET, POST, PUT, PATCH, DELETE,"
                        + " HEAD, OPTIONS but was \"get /x\"",
                "rules.export.match[2]: path must start with / and may use {name} templates but was \"api\"",
                "rules.export.match[3]: duplicate pattern \"GET /export/{type}\" (already at rules.export.match[0])",
                "rules.export.cost: 50 exceeds every limit of plan \"pro\" (largest capacity 20)",
                "customers.SAV2001.plan: unknown plan \"gold\" (known: free, pro)",
                "customers.SAV2001.multiplier: must be a finite number > 0 but was -1",
                "customers[\"\"]: customer id must be 1 to 128 characters but was 0",
                "apiKeys[0].sha256: must be 64 hex characters (the SHA-256 of the API key, see ApiKeys) but was \"abc\"",
                "apiKeys[0].customer: unknown customer \"nobody\"",
                "apiKeys[1]: unknown key \"sha\" (allowed: sha256, customer)",
                "apiKeys[1]: missing required key \"sha256\"");
        assertThat(e.getMessage())
                .startsWith("invalid quota config " + resource("broken.yaml") + " (26 errors):\n")
                .contains("\n  plans.free.limits[1].period: unknown unit \"mins\" (use ms, s, m, h, d)\n");
    }

    @Test
    void parse_unknownKey_suggestsTheClosestAllowedKey() {
        assertThat(errorsOf("""
                identity: {missingKey: reject, headr: X-Key}
                plan:
                  free: {}
                """)).containsExactly(
                "unknown key \"plan\" (did you mean \"plans\"?)",
                "missing required key \"plans\"",
                "identity: unknown key \"headr\" (did you mean \"header\"?)");
    }

    @Test
    void parse_dailySmallerThanBurst_loadsWithWarning() {
        QuotaConfig config = QuotaConfigLoader.parse("""
                identity: {missingKey: reject}
                plans:
                  free:
                    limits:
                      - {name: burst, capacity: 20, tokens: 10, period: 1s}
                      - {name: daily, capacity: 10, refill: calendar, window: day}
                """, "test.yaml");

        assertThat(config.plans().get("free").limits()).hasSize(2);
        assertThat(config.warnings()).containsExactly("plans.free.limits[1]: daily capacity 10 is smaller than"
                + " burst capacity 20; the burst can never be used in full");
    }

    @Test
    void parse_limitShadowingSeveralShorterOnes_warnsOnceNamingTheLargest() {
        // Windows: burst 20/(10 per s) = 2 s, hourly 500/(500 per h) = 1 h, daily = 24 h, monthly = 31 d.
        QuotaConfig config = QuotaConfigLoader.parse("""
                identity: {missingKey: reject}
                plans:
                  free:
                    limits:
                      - {name: monthly, capacity: 30000, refill: calendar, window: month}
                      - {name: burst, capacity: 20, tokens: 10, period: 1s}
                      - {name: daily, capacity: 10, refill: calendar, window: day}
                      - {name: hourly, capacity: 500, refill: interval, period: 1h}
                """, "test.yaml");

        assertThat(config.warnings()).containsExactly("plans.free.limits[2]: daily capacity 10 is smaller than"
                + " hourly capacity 500; the hourly can never be used in full");
    }

    @Test
    void parse_ruleCostAboveEveryCapacityOfAPlan_isAnError() {
        assertThat(errorsOf("""
                identity: {missingKey: reject}
                plans:
                  free:
                    limits: [{name: burst, capacity: 20, period: 1s}, {name: minute, capacity: 15, period: 1m}]
                  pro:
                    limits: [{name: burst, capacity: 100, period: 1s}]
                rules:
                  export: {cost: 50}
                """)).containsExactly("rules.export.cost: 50 exceeds every limit of plan \"free\" (largest capacity 20)");
    }

    @Test
    void parse_ruleCostAboveSomeCapacitiesOfAPlan_isAWarning() {
        QuotaConfig config = QuotaConfigLoader.parse("""
                identity: {missingKey: reject}
                plans:
                  free:
                    limits: [{name: burst, capacity: 20, period: 1s}, {name: daily, capacity: 1000, period: 1d}]
                rules:
                  export: {cost: 30}
                """, "test.yaml");

        assertThat(config.rules().get("export").cost()).isEqualTo(30);
        assertThat(config.warnings()).containsExactly("rules.export.cost: 30 exceeds limit \"burst\" of plan \"free\""
                + " (capacity 20); on that plan only customers with a multiplier can pass");
    }

    @Test
    void parse_duplicateMatchAcrossRules_isAnErrorEvenWithOtherTemplateNames() {
        assertThat(errorsOf("""
                identity: {missingKey: reject}
                plans: {free: {limits: [{name: burst, capacity: 1, period: 1s}]}}
                rules:
                  a: {match: ["DELETE /accounts/{id}"]}
                  b: {match: ["DELETE /accounts/{accountId}"]}
                """)).containsExactly(
                "rules.b.match[0]: duplicate pattern \"DELETE /accounts/{accountId}\" (already at rules.a.match[0])");
    }

    @Test
    void parse_controlCharacterInAnEchoedValue_staysOnOnePrintableLine() {
        // a tab inside a quoted address was echoed as it was by the address parser
        assertThat(errorsOf("""
                plans: {free: {limits: [{name: burst, capacity: 1, period: 1s}]}}
                rules:
                  a: {match: ["GET /a\tb"]}
                allow:
                  cidrs: ["192.0\t2.0/24"]
                """)).containsExactly(
                "rules.a.match[0]: path must start with / and may use {name} templates but was \"/a\\u0009b\"",
                "allow.cidrs[0]: \"192.0\\u00092.0/24\" is not an address or range such as 10.0.0.0/8 or 2001:db8::/32"
                        + " (host names are not resolved)");
    }
}
