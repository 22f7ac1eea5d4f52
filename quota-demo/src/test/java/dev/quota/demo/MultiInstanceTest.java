package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.config.QuotaConfigLoader;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RawHttp;
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

    @Test
    void guesserBlockedOnOneInstance_cannotTryAValidKeyOnTheOthers_regressionForInstanceHopping() {
        var settings = new DemoApp.Settings(Configs.bundled(), null, "127.0.0.1", 0, 3, Duration.ofSeconds(5),
                MutableClock.at("2026-03-10T09:00:00Z"));
        String guesser = "127.0.0.31";
        try (RedisServer redis = RedisServer.start();
             DemoApp app = DemoApp.start(withRedis(settings, redis.uri()))) {
            List<URI> instances = app.baseUris();
            for (int i = 0; i < 10; i++) {
                assertThat(RawHttp.get(guesser, instances.get(0).getPort(), "/api/v1/rates", "X-API-Key",
                        "demo-guess-" + i).status()).as("guess %d", i + 1).isEqualTo(401);
            }
            assertThat(RawHttp.get(guesser, instances.get(0).getPort(), "/api/v1/rates", "X-API-Key", "demo-guess-10")
                    .status()).as("blocked on the first").isEqualTo(429);

            for (int other = 1; other < 3; other++) {
                RawHttp.Answer hop = RawHttp.get(guesser, instances.get(other).getPort(), "/api/v1/accounts/ACC-4001",
                        "X-API-Key", "demo-enterprise-key");
                assertThat(hop.status()).as("a valid key never used from there, on instance %d", other + 1)
                        .isEqualTo(429);
                assertThat(hop.body()).contains("\"type\":\"urn:quota:problem:too-many-failed-keys\"");
            }
            assertThat(RawHttp.get("127.0.0.32", instances.get(1).getPort(), "/api/v1/accounts/ACC-4001",
                    "X-API-Key", "demo-enterprise-key").status()).as("another address").isEqualTo(200);
        }
    }

    private static DemoApp.Settings withRedis(DemoApp.Settings s, String uri) {
        return new DemoApp.Settings(s.config(), uri, s.host(), s.port(), s.instances(), s.redisTimeout(), s.clock());
    }
}
