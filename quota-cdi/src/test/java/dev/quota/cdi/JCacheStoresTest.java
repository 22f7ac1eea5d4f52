package dev.quota.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.cache.impl.HazelcastServerCachingProvider;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.quota.core.Concurrency;
import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Limit;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaListener;
import dev.quota.core.QuotaService;
import dev.quota.core.QuotaStack;
import dev.quota.core.Refill;
import dev.quota.core.spi.CustomerDirectory;
import dev.quota.jcache.JCacheStore;
import dev.quota.testkit.Await;
import dev.quota.testkit.FreePort;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.cache.CacheManager;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code quota.store=jcache} over the application's Hazelcast {@link CacheManager}, as on Payara:
 * the store quota-cdi builds holds its in-flight leases by its grid member, so once a member that
 * held leases is gone from the cluster its leases come back at the customer's next request, with
 * no code of the application's. Two members in this JVM; the leases last an hour, so none comes
 * back by its deadline here.
 */
class JCacheStoresTest {

    private static final QuotaConfig CONFIG = QuotaConfig.builder().version(1)
            .plan(Plan.of("free", List.of(new Limit("burst", 1_000, Refill.greedy(1, Duration.ofHours(1)))),
                    FailurePolicy.CLOSED).withConcurrency(new Concurrency(5, Duration.ofHours(1))))
            .build();

    private final List<HazelcastInstance> members = new ArrayList<>();

    @AfterEach
    void stopMembers() {
        members.forEach(member -> member.getLifecycleService().terminate());
    }

    @Test
    void aGridMemberGoneFromTheCluster_itsLeasesComeBackAtTheNextRequest_withTheStoreAsConfigured() {
        String cluster = "quota-cdi-" + UUID.randomUUID();
        List<String> ports = List.of(String.valueOf(FreePort.loopback()), String.valueOf(FreePort.loopback()));
        HazelcastInstance deciding = member(cluster, ports.get(0), ports);
        HazelcastInstance leaving = member(cluster, ports.get(1), ports);
        Await.until(Duration.ofMinutes(2), () -> deciding.getCluster().getMembers().size() == 2,
                () -> "two members");
        CacheManager manager = new HazelcastServerCachingProvider(deciding).getCacheManager();
        QuotaSettings settings = QuotaSettings.read(QuotaSettingsTest.source(Map.of("quota.store", "jcache"), Map.of()));
        Stores.Built built = Stores.build(settings, beans(manager));
        Customer customer = Customer.of("member-" + UUID.randomUUID(), "free");

        CacheManager leavingManager = new HazelcastServerCachingProvider(leaving).getCacheManager();
        try (QuotaStack stack = built.stack().service(service -> service.config(CONFIG)).build();
             QuotaService onLeaving = QuotaService.builder().config(CONFIG)
                     .store(JCacheStore.builder(JCacheStore.cache(leavingManager, settings.jcacheCache())).build())
                     .build()) {
            assertThat(built.store().describe()).endsWith(", in-flight leases held by this grid member");
            for (int i = 0; i < 3; i++) {
                assertThat(onLeaving.decide(customer, null).allowed()).isTrue();
            }
            QuotaService service = stack.service();
            assertThat(service.decide(customer, null).allowed()).isTrue();
            assertThat(service.decide(customer, null).allowed()).isTrue();
            assertThat(service.decide(customer, null).allowed()).as("five held").isFalse();

            leaving.getLifecycleService().terminate();
            Await.until(Duration.ofMinutes(2), () -> service.decide(customer, null).allowed(),
                    () -> "the leaving member's leases to come back");
            int more = 0;
            for (int i = 0; i < 10; i++) {
                more += service.decide(customer, null).allowed() ? 1 : 0;
            }
            assertThat(more).as("its three: one taken above, two more, this member's two still count").isEqualTo(2);
        }
    }

    private HazelcastInstance member(String cluster, String port, List<String> ports) {
        Config config = new Config();
        config.setClusterName(cluster);
        config.setProperty("hazelcast.logging.type", "slf4j");
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.shutdownhook.enabled", "false");
        config.setProperty("hazelcast.wait.seconds.before.join", "0");
        config.setProperty("hazelcast.partition.count", "71");
        config.getNetworkConfig().setPort(Integer.parseInt(port)).setPortAutoIncrement(false);
        config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        JoinConfig join = config.getNetworkConfig().getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true);
        ports.forEach(p -> join.getTcpIpConfig().addMember("127.0.0.1:" + p));
        HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
        members.add(member);
        return member;
    }

    private static AppBeans beans(CacheManager manager) {
        return new AppBeans() {
            @Override
            public @Nullable CustomerDirectory customers() {
                return null;
            }

            @Override
            public List<QuotaListener> listeners() {
                return List.of();
            }

            @Override
            public @Nullable Object bean(String className) {
                return className.equals("javax.cache.CacheManager") ? manager : null;
            }
        };
    }
}
