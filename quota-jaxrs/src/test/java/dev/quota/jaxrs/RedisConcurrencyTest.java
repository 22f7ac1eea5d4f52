package dev.quota.jaxrs;

import dev.quota.testkit.BusyCores;
import org.junit.jupiter.api.extension.ExtendWith;
import dev.quota.core.spi.QuotaStore;
import dev.quota.redis.RedisStore;
import dev.quota.testkit.RedisExtension;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The same 100 simultaneous requests, counted in a real redis-server. */
@ExtendWith(BusyCores.class)
class RedisConcurrencyTest extends ConcurrencyContract {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Override
    QuotaStore store(Clock clock) {
        // the defaults, as a user gets them: 100 requests on one key at once are counted exactly
        return RedisStore.builder().uri(redis.uri()).clock(clock).build();
    }
}
