package dev.quota.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.Customer;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaListener;
import dev.quota.core.QuotaService;
import dev.quota.core.spi.CustomerDirectory;
import dev.quota.testkit.Await;
import dev.quota.testkit.RedisExtension;
import dev.quota.testkit.RespClient;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import jakarta.enterprise.inject.spi.Extension;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The extension in a real CDI container (Weld SE), with MicroProfile Config (SmallRye Config) as
 * the server would have it: the service is built from each kind of setting as the container
 * starts, injectable, and closed as it stops.
 */
class CdiWiringTest {

    static final String PLANS_KEY = "plans-file-key-0123456789";

    @RegisterExtension
    static RedisExtension redis = RedisExtension.standalone();

    @TempDir
    Path dir;

    /**
     * A container with the application's {@code beans} and the extension, which a server finds in
     * the jar's {@code META-INF/services} ({@link #theExtension_isAServiceOfTheJar}) and which adds
     * the module's beans; Weld SE without discovery reads no services file.
     */
    static Weld weld(Class<?>... beans) {
        return new Weld().disableDiscovery().addExtension(new QuotaExtension())
                .addBeanClasses(QuotaProducers.class, QuotaRequest.class, UnenforcedGuard.class, TheApplication.class)
                .addBeanClasses(beans);
    }

    /**
     * Builds the service as the Jakarta REST application's start does ({@link QuotaProviders}) in a
     * container that runs the extension, and closes the container.
     */
    static void startService(Weld weld) {
        WeldContainer container = weld.initialize();
        try {
            container.select(QuotaProducers.class).get().quotas();
        } finally {
            container.shutdown();
        }
    }

    /** A bean of the application's own: Weld SE refuses to start a container without one. */
    @Dependent
    public static class TheApplication {
    }

    @Test
    void theExtension_isAServiceOfTheJar() {
        assertThat(ServiceLoader.load(Extension.class).stream().map(ServiceLoader.Provider::type).toList())
                .contains(QuotaExtension.class);
    }

    @Test
    void memoryStore_fromTheClasspathPlans_isInjectable_andClosedWithTheContainer() {
        QuotaService service;
        Customer customer;
        try (SystemProperties ignored = new SystemProperties()) {
            WeldContainer container = weld().initialize();
            service = container.select(QuotaService.class).get();
            customer = service.customerForApiKey(PLANS_KEY);
            assertThat(customer).isEqualTo(Customer.of("FROM-PLANS", "small"));
            assertThat(service.decide(customer, null).allowed()).isTrue();
            assertThat(service.decide(customer, null).allowed()).isTrue();
            assertThat(service.decide(customer, null).outcome()).isEqualTo(QuotaDecision.Outcome.REJECTED);
            assertThat(container.select(QuotaService.class).get()).isSameAs(service);
            container.shutdown();
        }
        // closing the in-JVM store dropped its buckets: the customer stands full again
        assertThat(service.admin().standing(customer).get(0).remaining()).isEqualTo(2);
    }

    @Test
    void redisStore_fromSettings_keepsBucketsInRedis_andLeavesItOnShutdown() {
        try (SystemProperties ignored = new SystemProperties().set("quota.store", "redis")
                .set("quota.redis.uri", redis.uri()).set("quota.redis.timeout", "2s");
             RespClient resp = RespClient.connect(redis.server().host(), redis.server().port())) {
            WeldContainer container = weld().initialize();
            QuotaService service = container.select(QuotaService.class).get();

            assertThat(service.decide(service.customerForApiKey(PLANS_KEY), null).allowed()).isTrue();
            assertThat(resp.command("KEYS", "quota:{c.*").toString()).contains("quota:{c.");
            assertThat(resp.command("ZCARD", "quota:instances")).isEqualTo(1L);
            container.shutdown();
            // the instance registry closed (it leaves at once) and with it the service
            assertThat(resp.command("ZCARD", "quota:instances")).isEqualTo(0L);
        }
    }

    @Test
    void plansFileOnDisk_isLoaded_andItsEditsApplied() throws IOException {
        Path plans = dir.resolve("plans.yaml");
        Files.writeString(plans, plansWithCapacity(4));
        try (SystemProperties ignored = new SystemProperties().set("quota.plans", plans.toString())
                .set("quota.plans.reload-interval", "50ms")) {
            WeldContainer container = weld().initialize();
            QuotaService service = container.select(QuotaService.class).get();
            assertThat(service.config().plan("disk").orElseThrow().limits().get(0).capacity()).isEqualTo(4);

            Files.writeString(plans, plansWithCapacity(9));
            Await.until(Duration.ofSeconds(10),
                    () -> service.config().plan("disk").orElseThrow().limits().get(0).capacity() == 9,
                    () -> "the edited plans file was not applied: " + service.config().plans());
            container.shutdown();
        }
    }

    @Test
    void microProfileConfig_isWhereTheSettingsAreRead() {
        try (SystemProperties ignored = new SystemProperties()) {
            WeldContainer container = weld().initialize();
            // quota.customers.ttl=45s is only in META-INF/microprofile-config.properties
            assertThat(container.select(QuotaProducers.class).get().quotas().settings().customersTtl())
                    .isEqualTo(Duration.ofSeconds(45));
            container.shutdown();
        }
    }

    @Test
    void withoutPortableExtensions_asOnCdiLite_aBadSettingStillFailsTheStart_onTheStartupEvent() {
        // ArC (Quarkus) runs no portable extension: the discovered beans alone must start the service
        try (SystemProperties ignored = new SystemProperties().set("quota.store", "redsi")) {
            assertThatThrownBy(() -> new Weld().disableDiscovery()
                    .addBeanClasses(QuotaProducers.class, QuotaRequest.class, UnenforcedGuard.class, TheApplication.class)
                    .initialize())
                    .hasStackTraceContaining("quota.store: unknown store \"redsi\" (use redis, jcache or memory)");
        }
    }

    @Test
    void theModulesBeans_areDiscoveredFromTheJarsBeansXml_byTheirBeanDefiningAnnotations() throws Exception {
        try (var beansXml = QuotaProducers.class.getResourceAsStream("/META-INF/beans.xml")) {
            assertThat(beansXml).as("META-INF/beans.xml in quota-cdi's jar").isNotNull();
            assertThat(new String(beansXml.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8))
                    .contains("bean-discovery-mode=\"annotated\"");
        }
        assertThat(QuotaProducers.class).hasAnnotation(jakarta.enterprise.context.ApplicationScoped.class);
        assertThat(QuotaRequest.class).hasAnnotation(jakarta.enterprise.context.RequestScoped.class);
        assertThat(UnenforcedGuard.class).hasAnnotation(jakarta.interceptor.Interceptor.class);
    }

    @Test
    void aBadSetting_failsTheServiceAsTheJakartaRestApplicationStarts_namingTheSetting() {
        // with the portable extension (Weld), the service is built as QuotaProviders configures the
        // application: Payara fires Startup before the application's data sources can be reached
        try (SystemProperties ignored = new SystemProperties().set("quota.store", "redsi")) {
            WeldContainer container = weld().initialize();
            try {
                assertThatThrownBy(() -> container.select(QuotaProducers.class).get().quotas())
                        .hasMessageContaining("quota.store: unknown store \"redsi\" (use redis, jcache or memory)");
            } finally {
                container.shutdown();
            }
        }
    }

    @Test
    void jcacheWithoutACacheManagerBean_failsTheStart_namingTheStore() {
        try (SystemProperties ignored = new SystemProperties().set("quota.store", "jcache")) {
            assertThatThrownBy(() -> startService(weld()))
                    .hasMessageContaining("quota.store: jcache needs a javax.cache.CacheManager bean");
        }
    }

    @Test
    void aBadPlansFile_failsTheStart_namingTheSettingAndTheError() throws IOException {
        Path plans = dir.resolve("broken.yaml");
        Files.writeString(plans, "plans:\n  free:\n    limits:\n      - {name: burst, capacity: 0, period: 1s}\n");
        try (SystemProperties ignored = new SystemProperties().set("quota.plans", plans.toString())) {
            assertThatThrownBy(() -> startService(weld()))
                    .hasMessageContaining("quota.plans: ")
                    .hasMessageContaining("plans.free.limits[0].capacity");
        }
        try (SystemProperties ignored = new SystemProperties().set("quota.plans", "classpath:missing.yaml")) {
            assertThatThrownBy(() -> startService(weld()))
                    .hasMessageContaining("quota.plans: classpath:missing.yaml is not in the application");
        }
    }

    @Test
    void theApplicationsCustomerDirectory_isUsed_behindTheCache() {
        CountingDirectory.lookups.set(0);
        try (SystemProperties ignored = new SystemProperties()) {
            WeldContainer container = weld(CountingDirectory.class).initialize();
            QuotaService service = container.select(QuotaService.class).get();

            assertThat(service.customerForApiKey("db-key-0123456789")).isEqualTo(Customer.of("FROM-DB", "small"));
            assertThat(service.customerForApiKey("db-key-0123456789")).isEqualTo(Customer.of("FROM-DB", "small"));
            // the plans file's key is not in the application's directory, which replaces the file's customers
            assertThat(service.customerForApiKey(PLANS_KEY)).isNull();
            assertThat(CountingDirectory.lookups).hasValue(2);
            container.shutdown();
        }
    }

    @Test
    void aDirectoryProducerThatReturnsNull_keepsThePlansFilesCustomers() {
        try (SystemProperties ignored = new SystemProperties()) {
            WeldContainer container = weld(NoDirectory.class).initialize();

            assertThat(container.select(QuotaService.class).get().customerForApiKey(PLANS_KEY))
                    .isEqualTo(Customer.of("FROM-PLANS", "small"));
            container.shutdown();
        }
    }

    @Test
    void listenerBeans_hearEveryDecision() {
        RecordingListener.decisions.clear();
        try (SystemProperties ignored = new SystemProperties()) {
            WeldContainer container = weld(RecordingListener.class).initialize();
            QuotaService service = container.select(QuotaService.class).get();
            service.decide(service.customerForApiKey(PLANS_KEY), null);

            assertThat(RecordingListener.decisions).containsExactly("FROM-PLANS ALLOWED");
            container.shutdown();
        }
    }

    static String plansWithCapacity(int capacity) {
        return """
                identity: {missingKey: reject}
                plans:
                  disk:
                    limits:
                      - {name: burst, capacity: %d, refill: interval, period: 1h}
                """.formatted(capacity);
    }

    /** An application's own customers, counting the lookups that reach it. */
    @Dependent
    public static class CountingDirectory implements CustomerDirectory {
        static final AtomicInteger lookups = new AtomicInteger();

        @Override
        public @Nullable Customer byApiKeyHash(String sha256Hex) {
            lookups.incrementAndGet();
            return sha256Hex.equals(Keys.sha256("db-key-0123456789"))
                    ? Customer.of("FROM-DB", "small") : null;
        }
    }

    /** An application that decides at start-up to keep the plans file's customers. */
    @ApplicationScoped
    public static class NoDirectory {
        @Produces
        @Dependent
        @Nullable CustomerDirectory directory() {
            return null;
        }
    }

    /** Metrics or audit of the application, as a bean. */
    @ApplicationScoped
    public static class RecordingListener implements QuotaListener {
        static final List<String> decisions = new CopyOnWriteArrayList<>();

        @Override
        public void onDecision(Customer customer, @Nullable String limits, QuotaDecision decision, Duration took) {
            decisions.add(customer.id() + " " + decision.outcome());
        }
    }
}
