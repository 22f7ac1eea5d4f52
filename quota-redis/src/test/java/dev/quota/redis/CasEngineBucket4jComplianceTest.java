package dev.quota.redis;

import dev.quota.redis.internal.engine.CasEngineProxyManager;
import dev.quota.testkit.RedisExtension;
import io.github.bucket4j.tck.AbstractDistributedBucketTest;
import io.github.bucket4j.tck.ProxyManagerSpec;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bucket4j's own compliance suite for distributed buckets, run against the Redis store's
 * compare-and-swap engine on a real Redis: every remote command of Bucket4j's proxies (consume,
 * verbose, add tokens, reset, configuration), expiration after write, removal, parallel
 * initialisation and rates under contention. Three ways:
 * <ul>
 *   <li>one instance with the store's optimisations on (states remembered, refusals answered
 *       locally for 1 s);
 *   <li>two instances on one Redis taking turns command by command, optimisations on: every bucket
 *       is written by both, so nothing remembered may stand in for Redis where it must not;
 *   <li>the same two instances with the optimisations off.
 * </ul>
 *
 * <p>Async cases pass without running: the engine is synchronous ({@code isAsyncModeSupported} false),
 * as Bucket4j's own JDBC managers are.
 */
class CasEngineBucket4jComplianceTest extends AbstractDistributedBucketTest {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static RedisStore optimised;
    private static RedisStore otherOptimised;
    private static RedisStore plain;
    private static RedisStore otherPlain;

    static {
        specs = List.of(
                new ProxyManagerSpec<>("one instance, optimisations on", CasEngineBucket4jComplianceTest::key,
                        () -> CasEngineProxyManager.builder(optimised.engine())).checkExpiration(),
                new ProxyManagerSpec<>("two instances taking turns, optimisations on",
                        CasEngineBucket4jComplianceTest::key,
                        () -> CasEngineProxyManager.builder(optimised.engine(), otherOptimised.engine()))
                        .checkExpiration(),
                new ProxyManagerSpec<>("two instances taking turns, optimisations off",
                        CasEngineBucket4jComplianceTest::key,
                        () -> CasEngineProxyManager.builder(plain.engine(), otherPlain.engine())).checkExpiration());
    }

    private static String key() {
        return "tck:" + UUID.randomUUID();
    }

    private static RedisStore store(boolean optimisations) {
        RedisStoreBuilder builder = RedisStore.builder().uri(redis.uri());
        if (!optimisations) {
            builder.reuseWrittenState(false).rejectLocallyFor(Duration.ZERO);
        }
        return builder.build();
    }

    @BeforeAll
    static void openStores() {
        optimised = store(true);
        otherOptimised = store(true);
        plain = store(false);
        otherPlain = store(false);
    }

    @AfterAll
    static void closeStores() {
        optimised.close();
        otherOptimised.close();
        plain.close();
        otherPlain.close();
    }
}
