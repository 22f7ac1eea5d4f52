package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.config.QuotaConfigLoader;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisServer;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Three instances in this JVM, each with its own quota service and Redis client, share one
 * Redis: a customer with 30 requests gets 30 in total, however the requests are spread. The clock
 * is frozen, so not even the one-token-a-day refill happens.
 */
class MultiInstanceTest {

    @Test
    void threeInstances_300ConcurrentRequestsOfOneCustomer_admitExactly30() throws Exception {
        var settings = new DemoApp.Settings(QuotaConfigLoader.load(Configs.file("shared-30.yaml")), null,
                "127.0.0.1", 0, 3, Duration.ofSeconds(5), MutableClock.at("2026-03-10T09:00:00Z"));
        try (RedisServer redis = RedisServer.start();
             DemoApp app = DemoApp.start(withRedis(settings, redis.uri()))) {
            List<URI> instances = app.baseUris();
            assertThat(instances).hasSize(3).doesNotHaveDuplicates();
            assertThat(app.services()).hasSize(3).doesNotHaveDuplicates();

            Map<Integer, Long> statuses = Burst.fire(instances, 300);

            assertThat(statuses).containsOnly(Map.entry(200, 30L), Map.entry(429, 270L));
        }
    }

    private static DemoApp.Settings withRedis(DemoApp.Settings s, String uri) {
        return new DemoApp.Settings(s.config(), uri, s.host(), s.port(), s.instances(), s.redisTimeout(), s.clock());
    }
}
