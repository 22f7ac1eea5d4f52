package dev.quota.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.redis.internal.engine.CasEngineProxyManager;
import dev.quota.testkit.RedisExtension;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What an instance remembers of a key answers only refusals without Redis: a read, or a bucket not
 * found, must be confirmed, or it misses what another instance wrote. Two stores on one Redis, with
 * the default 1 s during which refusals are answered from memory; each step comes well within it.
 */
class CasEngineRemembranceTest {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static final BucketConfiguration HUNDRED_A_DAY = BucketConfiguration.builder()
            .addLimit(limit -> limit.capacity(100).refillIntervally(100, Duration.ofDays(1))).build();

    private static RedisStore first;
    private static RedisStore second;

    @BeforeAll
    static void open() {
        first = RedisStore.builder().uri(redis.uri()).build();
        second = RedisStore.builder().uri(redis.uri()).build();
    }

    @AfterAll
    static void close() {
        first.close();
        second.close();
    }

    @Test
    void availableTokens_readAfterAnotherInstanceConsumed_isWhatRedisHolds() {
        ProxyManager<String> one = CasEngineProxyManager.builder(first.engine()).build();
        ProxyManager<String> other = CasEngineProxyManager.builder(second.engine()).build();
        String key = "remembered:" + UUID.randomUUID();
        assertThat(one.builder().build(key, () -> HUNDRED_A_DAY).getAvailableTokens()).isEqualTo(100);

        assertThat(other.builder().build(key, () -> HUNDRED_A_DAY).tryConsume(30)).isTrue();

        assertThat(one.builder().build(key, () -> HUNDRED_A_DAY).getAvailableTokens()).isEqualTo(70);
    }

    @Test
    void bucketNotFound_afterAnotherInstanceCreatedIt_isFoundAtOnce() {
        ProxyManager<String> one = CasEngineProxyManager.builder(first.engine()).build();
        ProxyManager<String> other = CasEngineProxyManager.builder(second.engine()).build();
        String key = "remembered:" + UUID.randomUUID();
        assertThat(one.getProxyConfiguration(key)).isEmpty();

        other.builder().build(key, () -> HUNDRED_A_DAY).tryConsume(1);

        assertThat(one.getProxyConfiguration(key)).contains(HUNDRED_A_DAY);
    }

    @Test
    void bucketRemovedByAnotherInstance_isGoneAtOnce() {
        ProxyManager<String> one = CasEngineProxyManager.builder(first.engine()).build();
        ProxyManager<String> other = CasEngineProxyManager.builder(second.engine()).build();
        String key = "remembered:" + UUID.randomUUID();
        one.builder().build(key, () -> HUNDRED_A_DAY).tryConsume(1);

        other.removeProxy(key);

        assertThat(one.getProxyConfiguration(key)).isEmpty();
    }
}
