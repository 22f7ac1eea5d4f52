package dev.quota.redis;

import dev.quota.core.Caller;
import dev.quota.core.Credential;
import dev.quota.core.RequestFacts;
import dev.quota.core.net.ClientAddresses;
import dev.quota.core.QuotaService;
import dev.quota.core.QuotaConfig;
import static dev.quota.core.Configs.config;
import static dev.quota.core.Configs.greedy;
import static dev.quota.core.Configs.plan;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.redis.RedisStore;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The failed-key limiter over a real redis-server, shared by two service instances. */
class FailedKeysRedisTest {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final QuotaConfig config = config(plan("free", greedy("burst", 5, 1, Duration.ofHours(1)))).withVersion(1);

    private QuotaService instance(String keyPrefix) {
        return QuotaService.builder()
                .store(RedisStore.builder().uri(redis.uri()).clock(clock).build())
                .config(config).clock(clock).keyPrefix(keyPrefix).build();
    }

    private static Caller guess(QuotaService service, String address) {
        return service.identify(RequestFacts.of(Credential.apiKey("guess-" + System.nanoTime()),
                ClientAddresses.parse(address)));
    }

    @Test
    void failedKeys_countAcrossInstances_401Then429() {
        try (QuotaService first = instance("fk1"); QuotaService second = instance("fk1")) {
            for (int i = 0; i < 5; i++) {
                assertThat(guess(first, "203.0.113.7").kind()).isEqualTo(Caller.Kind.UNKNOWN_CREDENTIAL);
                assertThat(guess(second, "203.0.113.7").kind()).isEqualTo(Caller.Kind.UNKNOWN_CREDENTIAL);
            }

            Caller eleventh = guess(second, "203.0.113.7");

            assertThat(eleventh.kind()).isEqualTo(Caller.Kind.BLOCKED);
            assertThat(eleventh.refusal().violated().policy()).isEqualTo("identity-failed-keys");
            assertThat(eleventh.refusal().retryAfter()).isEqualTo(Duration.ofSeconds(6));
            // the first instance learns of the block on the address's next failure there
            assertThat(guess(first, "203.0.113.7").kind()).isEqualTo(Caller.Kind.BLOCKED);
            assertThat(guess(first, "198.51.100.1").kind()).isEqualTo(Caller.Kind.UNKNOWN_CREDENTIAL);
        }
    }

    @Test
    void failedKeys_afterRefill_allowOneMoreFailure() {
        try (QuotaService service = instance("fk2")) {
            for (int i = 0; i < 10; i++) {
                guess(service, "2001:db8:7:7::1");
            }
            assertThat(guess(service, "2001:db8:7:7::2").kind()).isEqualTo(Caller.Kind.BLOCKED);

            clock.advance(Duration.ofSeconds(6));

            assertThat(guess(service, "2001:db8:7:7::3").kind()).isEqualTo(Caller.Kind.UNKNOWN_CREDENTIAL);
            assertThat(guess(service, "2001:db8:7:7::4").kind()).isEqualTo(Caller.Kind.BLOCKED);
        }
    }
}
