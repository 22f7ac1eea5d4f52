package dev.quota.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.Limit;
import dev.quota.core.QuotaStoreException;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.store.QuotaStoreContract;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisExtension;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The store contract against a real redis-server process. */
class RedisStoreTest extends QuotaStoreContract {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Test
    void build_whenRedisUnreachable_failsAfterTheConnectTimeout() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }

        assertThatThrownBy(() -> RedisStore.builder().uri("redis://127.0.0.1:" + closedPort)
                .connectTimeout(Duration.ofMillis(300)).build())
                .isInstanceOf(QuotaStoreException.class)
                .hasMessageContaining("cannot connect to redis standalone redis://127.0.0.1:" + closedPort + " within 300 ms");
    }

    @Test
    void build_withTheDefaultCommandTimeout_connectsFromAColdClient() {
        // the 100 ms command timeout must not fail the first connection of a new client
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).build()) {
            assertThatCode(store::ping).as("the first command of a new client").doesNotThrowAnyException();
            assertThat(store.tryConsume(freshKey(), BucketSpec.of(List.of(new Limit("burst", 5,
                    Refill.greedy(5, Duration.ofHours(1)))), 1), 1).remaining()).containsExactly(4);
        }
    }

    @Override
    protected QuotaStore newStore(MutableClock clock) {
        return RedisStore.builder().uri(redis.uri()).clock(clock).build();
    }
}
