package dev.quota.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QuotaSettingsTest {

    static final String TOKEN = "0123456789abcdefABCDEF0123456789-_token";

    @TempDir
    Path dir;

    static SettingsSource source(Map<String, String> properties, Map<String, String> env) {
        Properties props = new Properties();
        props.putAll(properties);
        return SettingsSource.system(props, env);
    }

    @Test
    void read_withNothingSet_givesTheDocumentedDefaults() {
        QuotaSettings settings = QuotaSettings.read(source(Map.of(), Map.of()));

        assertThat(settings.plans()).isEqualTo("classpath:plans.yaml");
        assertThat(settings.plansOnDisk()).isFalse();
        assertThat(settings.reloadInterval()).isEqualTo(Duration.ofMillis(500));
        assertThat(settings.store()).isEqualTo(QuotaSettings.Store.MEMORY);
        assertThat(settings.redisUri()).isNull();
        assertThat(settings.redisTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(settings.redisRetryBudget()).isEqualTo(1_000);
        assertThat(settings.jcacheCache()).isEqualTo("quota-buckets");
        assertThat(settings.jcacheMode()).isEqualTo("compare-and-swap");
        assertThat(settings.jcacheRetryBudget()).isEqualTo(1_000);
        assertThat(settings.jcacheExpireAfterWrite()).isEqualTo(Duration.ofHours(25));
        assertThat(settings.keyPrefix()).isEqualTo("quota");
        assertThat(settings.caller()).containsExactly("api-key");
        assertThat(settings.customersTtl()).isEqualTo(Duration.ofSeconds(30));
        assertThat(settings.customersMaxEntries()).isEqualTo(100_000);
        assertThat(settings.adminToken()).isNull();
    }

    @Test
    void read_takesEverySettingFromProperties() throws IOException {
        Path token = tokenFile("rw-------");
        QuotaSettings settings = QuotaSettings.read(source(Map.ofEntries(
                Map.entry("quota.plans", "/etc/quota/plans.yaml"),
                Map.entry("quota.plans.reload-interval", "0"),
                Map.entry("quota.store", "Redis"),
                Map.entry("quota.redis.uri", "redis://cache:6379"),
                Map.entry("quota.redis.timeout", "5s"),
                Map.entry("quota.redis.retry-budget", "3000"),
                Map.entry("quota.jcache.cache", "bank-quotas"),
                Map.entry("quota.jcache.mode", "entry-processor"),
                Map.entry("quota.jcache.retry-budget", "200"),
                Map.entry("quota.jcache.expire-after-write", "2d"),
                Map.entry("quota.key-prefix", "bank"),
                Map.entry("quota.caller", "principal, api-key"),
                Map.entry("quota.customers.ttl", "5m"),
                Map.entry("quota.customers.max-entries", "5000"),
                Map.entry("quota.admin.token-file", token.toString())), Map.of()));

        assertThat(settings.plans()).isEqualTo("/etc/quota/plans.yaml");
        assertThat(settings.plansOnDisk()).isTrue();
        assertThat(settings.reloadInterval()).isZero();
        assertThat(settings.store()).isEqualTo(QuotaSettings.Store.REDIS);
        assertThat(settings.redisUri()).isEqualTo("redis://cache:6379");
        assertThat(settings.redisTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(settings.redisRetryBudget()).isEqualTo(3_000);
        assertThat(settings.jcacheCache()).isEqualTo("bank-quotas");
        assertThat(settings.jcacheMode()).isEqualTo("entry-processor");
        assertThat(settings.jcacheRetryBudget()).isEqualTo(200);
        assertThat(settings.jcacheExpireAfterWrite()).isEqualTo(Duration.ofDays(2));
        assertThat(settings.keyPrefix()).isEqualTo("bank");
        assertThat(settings.caller()).containsExactly("principal", "api-key");
        assertThat(settings.customersTtl()).isEqualTo(Duration.ofMinutes(5));
        assertThat(settings.customersMaxEntries()).isEqualTo(5000);
        assertThat(settings.adminToken().token()).isEqualTo(TOKEN);
        assertThat(settings.adminToken().toString()).doesNotContain(TOKEN).contains(token.toString());
        @SuppressWarnings("ObjectToString") // none today: guards the one QuotaSettings may get against the token
        String shown = settings.toString();
        assertThat(shown).doesNotContain(TOKEN);
    }

    @Test
    void read_takesSettingsFromTheEnvironment_underTheirMicroProfileNames() {
        QuotaSettings settings = QuotaSettings.read(source(Map.of(), Map.of(
                "QUOTA_STORE", "redis", "QUOTA_REDIS_URI", "rediss://cache:6380", "QUOTA_ADMIN_TOKEN", TOKEN)));

        assertThat(settings.store()).isEqualTo(QuotaSettings.Store.REDIS);
        assertThat(settings.redisUri()).isEqualTo("rediss://cache:6380");
        assertThat(settings.adminToken().token()).isEqualTo(TOKEN);
        assertThat(settings.adminToken().source()).isEqualTo("the environment variable QUOTA_ADMIN_TOKEN");
    }

    @Test
    void read_reportsEveryBadSettingAtOnce_eachByName() {
        assertThatThrownBy(() -> QuotaSettings.read(source(Map.of(
                "quota.store", "redsi",
                "quota.redis.timeout", "2 minutes",
                "quota.redis.retry-budget", "500ms",
                "quota.caller", "api-key,cookie",
                "quota.customers.max-entries", "0",
                "quota.jcache.cache", "no spaces"), Map.of())))
                .isInstanceOfSatisfying(InvalidSettingsException.class, e -> assertThat(e.problems()).containsExactly(
                        "quota.store: unknown store \"redsi\" (use redis, jcache or memory)",
                        "quota.redis.timeout: must be a number and a unit like 15m (units ms, s, m, h, d) but was"
                                + " \"2 minutes\"",
                        "quota.redis.retry-budget: must be a whole number >= 1 but was \"500ms\"",
                        "quota.jcache.cache: must be 1 to 128 of A-Z a-z 0-9 _ . - but was \"no spaces\"",
                        "quota.caller: unknown caller \"cookie\" (use api-key, principal, or both in order:"
                                + " principal,api-key)",
                        "quota.customers.max-entries: must be a whole number >= 1 but was \"0\""))
                .hasMessageStartingWith("quota settings: 6 problems:");
    }

    @Test
    void read_redisWithoutUri_namesTheUriSetting() {
        assertThatThrownBy(() -> QuotaSettings.read(source(Map.of("quota.store", "redis"), Map.of())))
                .hasMessage("quota settings: quota.redis.uri: required with quota.store=redis (redis://host:6379 or"
                        + " rediss://...)");
        assertThatThrownBy(() -> QuotaSettings.read(source(Map.of("quota.store", "redis",
                "quota.redis.uri", "http://cache"), Map.of())))
                .hasMessageContaining("quota.redis.uri: must start with redis:// or rediss:// but was \"http://cache\"");
    }

    @Test
    void read_unknownQuotaSetting_isAnError_withTheSettingItWasMeantToBe() {
        assertThatThrownBy(() -> QuotaSettings.read(source(Map.of("quota.stroe", "redis"), Map.of())))
                .hasMessage("quota settings: quota.stroe: unknown setting (did you mean quota.store?)");
    }

    @Test
    void read_adminTokenAsAPlainProperty_isRefused() {
        assertThatThrownBy(() -> QuotaSettings.read(source(Map.of("quota.admin.token", TOKEN), Map.of())))
                .hasMessageContaining("quota.admin.token: not accepted")
                .hasMessageContaining("quota.admin.token-file")
                .hasMessageNotContaining(TOKEN);
    }

    @Test
    void read_adminTokenFromTheEnvironment_listedByMicroProfileConfigUnderItsPropertyName_isAccepted() {
        // SmallRye Config on Quarkus lists QUOTA_ADMIN_TOKEN as quota.admin.token among its names
        SettingsSource env = source(Map.of(), Map.of("QUOTA_ADMIN_TOKEN", TOKEN));
        SettingsSource asQuarkusListsIt = new SettingsSource() {
            @Override
            public String get(String name) {
                return name.equals("quota.admin.token") ? TOKEN : env.get(name);
            }

            @Override
            public Iterable<String> names() {
                return java.util.List.of("quota.admin.token");
            }

            @Override
            public String environment(String name) {
                return env.environment(name);
            }
        };

        assertThat(QuotaSettings.read(asQuarkusListsIt).adminToken().source())
                .isEqualTo("the environment variable QUOTA_ADMIN_TOKEN");
    }

    @Test
    void read_tokenFileOthersMayRead_isRefused() throws IOException {
        Path token = tokenFile("rw-r--r--");

        assertThatThrownBy(() -> QuotaSettings.read(source(Map.of("quota.admin.token-file", token.toString()),
                Map.of())))
                .hasMessageContaining("quota.admin.token-file: " + token + " may be read or written by group or others")
                .hasMessageNotContaining(TOKEN);
    }

    @Test
    void read_weakTokenFromTheEnvironment_isRefusedWithoutEchoingIt() {
        assertThatThrownBy(() -> QuotaSettings.read(source(Map.of(), Map.of("QUOTA_ADMIN_TOKEN", "secret"))))
                .hasMessageContaining("QUOTA_ADMIN_TOKEN (environment variable): admin token must be 32 to 256"
                        + " characters but was 6 characters long")
                .hasMessageNotContaining("secret\"");
    }

    @Test
    void read_zeroIsAllowedOnlyForTheReloadInterval() {
        assertThatThrownBy(() -> QuotaSettings.read(source(Map.of("quota.customers.ttl", "0"), Map.of())))
                .hasMessage("quota settings: quota.customers.ttl: must be more than 0");
        assertThat(QuotaSettings.read(source(Map.of("quota.plans.reload-interval", "0"), Map.of())).reloadInterval())
                .isZero();
    }

    @Test
    void read_durations_followThePlansFileGrammar_unitsOnlyNoIso() {
        assertThat(QuotaSettings.read(source(Map.of("quota.customers.ttl", " 90s "), Map.of())).customersTtl())
                .hasSeconds(90);
        assertThatThrownBy(() -> QuotaSettings.read(source(Map.of("quota.customers.ttl", "PT30S"), Map.of())))
                .hasMessage("quota settings: quota.customers.ttl: must be a number and a unit like 15m"
                        + " (units ms, s, m, h, d) but was \"PT30S\"");
        assertThatThrownBy(() -> QuotaSettings.read(source(Map.of("quota.customers.ttl", "5mins"), Map.of())))
                .hasMessage("quota settings: quota.customers.ttl: unknown unit \"mins\" (use ms, s, m, h, d)");
    }

    @Test
    void environmentName_isTheMicroProfileMapping() {
        assertThat(List.of(SettingsSource.environmentName("quota.redis.uri"),
                SettingsSource.environmentName("quota.plans.reload-interval")))
                .containsExactly("QUOTA_REDIS_URI", "QUOTA_PLANS_RELOAD_INTERVAL");
    }

    private Path tokenFile(String permissions) throws IOException {
        Path file = dir.resolve("admin-" + permissions.hashCode() + ".token");
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, TOKEN + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(permissions));
        return file;
    }
}
