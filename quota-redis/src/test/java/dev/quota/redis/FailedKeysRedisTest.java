package dev.quota.redis;

import dev.quota.core.Customer;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.QuotaConfig;
import static dev.quota.core.Configs.config;
import static dev.quota.core.Configs.greedy;
import static dev.quota.core.Configs.plan;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.QuotaDecision.Outcome;
import dev.quota.redis.RedisStore;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The failed-key limiter over a real redis-server, shared by two service instances. */
class FailedKeysRedisTest {

    private static RedisServer redis;

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final QuotaConfig config = config(plan("free", greedy("burst", 5, 1, Duration.ofHours(1)))).withVersion(1);

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    private QuotaService instance(String keyPrefix) {
        return QuotaService.builder()
                .store(RedisStore.builder().uri(redis.uri()).clock(clock).timeout(Duration.ofSeconds(2)).build())
                .config(config).clock(clock).keyPrefix(keyPrefix).build();
    }

    @Test
    void recordFailedKey_countsAcrossInstances_401Then429() {
        try (QuotaService first = instance("fk1"); QuotaService second = instance("fk1")) {
            for (int i = 0; i < 5; i++) {
                assertThat(first.recordFailedKey("203.0.113.7").outcome()).isEqualTo(Outcome.ALLOWED);
                assertThat(second.recordFailedKey("203.0.113.7").outcome()).isEqualTo(Outcome.ALLOWED);
            }

            QuotaDecision eleventh = second.recordFailedKey("203.0.113.7");

            assertThat(eleventh.outcome()).isEqualTo(Outcome.REJECTED);
            assertThat(eleventh.violated().policy()).isEqualTo("identity-failed-keys");
            assertThat(eleventh.retryAfter()).isEqualTo(Duration.ofSeconds(6));
            assertThat(second.peekFailedKeys("203.0.113.7").outcome()).isEqualTo(Outcome.REJECTED);
            // the first instance has not seen the rejection yet: its peek lets the lookup happen,
            // and the lookup's failure is then refused by the shared bucket
            assertThat(first.peekFailedKeys("203.0.113.7").outcome()).isEqualTo(Outcome.ALLOWED);
            assertThat(first.recordFailedKey("203.0.113.7").outcome()).isEqualTo(Outcome.REJECTED);
            assertThat(first.peekFailedKeys("203.0.113.7").outcome()).isEqualTo(Outcome.REJECTED);
            assertThat(first.recordFailedKey("198.51.100.1").outcome()).isEqualTo(Outcome.ALLOWED);
        }
    }

    @Test
    void recordFailedKey_afterRefill_allowsOneMoreFailure() {
        try (QuotaService service = instance("fk2")) {
            for (int i = 0; i < 10; i++) {
                service.recordFailedKey("2001:db8:7:7::1");
            }
            assertThat(service.recordFailedKey("2001:db8:7:7::2").outcome()).isEqualTo(Outcome.REJECTED);

            clock.advance(Duration.ofSeconds(6));

            assertThat(service.recordFailedKey("2001:db8:7:7::3").outcome()).isEqualTo(Outcome.ALLOWED);
            assertThat(service.recordFailedKey("2001:db8:7:7::4").outcome()).isEqualTo(Outcome.REJECTED);
        }
    }
}
