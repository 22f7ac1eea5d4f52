package dev.quota.demo;

import dev.quota.core.QuotaConfig;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisServer;
import dev.quota.testkit.RespClient;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * One demo instance in this JVM over its own redis-server, with the bundled plans and a frozen
 * clock, starting Monday 2026-01-12 09:00 UTC (10:00 in Berlin, winter time all month).
 */
final class RunningDemo implements AutoCloseable {

    final RedisServer redis;
    final MutableClock clock;
    final DemoApp app;
    /** {@code http://127.0.0.1:<port>/api/v1/} */
    final URI api;
    /** {@code http://127.0.0.1:<management port>/}, where {@code /metrics} is */
    final URI management;

    private RunningDemo(RedisServer redis, MutableClock clock, DemoApp app) {
        this.redis = redis;
        this.clock = clock;
        this.app = app;
        this.api = app.baseUris().get(0).resolve("api/v1/");
        this.management = app.managementUris().get(0);
    }

    static RunningDemo start() {
        return start(Configs.bundled(), null, null, Duration.ofSeconds(5));
    }

    /**
     * As {@link #start()}, with {@code config} (loaded from {@code configFile}, which is then watched),
     * an admin token and a Redis timeout of the test's choosing.
     */
    static RunningDemo start(QuotaConfig config, @Nullable Path configFile,
                             @Nullable String adminToken, Duration redisTimeout) {
        RedisServer redis = RedisServer.start();
        try {
            MutableClock clock = MutableClock.at("2026-01-12T09:00:00Z");
            DemoApp app = DemoApp.start(new DemoApp.Settings(config, redis.uri(), "127.0.0.1", 0, 1,
                    redisTimeout, clock, configFile, adminToken, 0));
            return new RunningDemo(redis, clock, app);
        } catch (RuntimeException e) {
            redis.close();
            throw e;
        }
    }

    /**
     * The next day at the same time, with empty Redis: every bucket is full, and what the instance
     * remembers about recent rejections has expired.
     */
    void nextDay() {
        clock.advance(Duration.ofDays(1));
        try (RespClient client = RespClient.connect(redis.host(), redis.port())) {
            client.flushAll();
        }
    }

    @Override
    public void close() {
        try {
            app.close();
        } finally {
            redis.close();
        }
    }
}
