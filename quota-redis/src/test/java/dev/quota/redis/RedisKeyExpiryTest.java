package dev.quota.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.testkit.Await;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisExtension;
import dev.quota.testkit.RespClient;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Bucket keys never outlive their use: TTLs, expiry of 100,000 customers, memory per customer. */
class RedisKeyExpiryTest {

    private static final int THREADS = 32;

    /**
     * This test measures what keys cost in Redis and when they go, not how fast a decision is: the
     * 110,000 decisions that fill Redis may wait on a saturated machine, and one past the shipped 2 s
     * (operations.md, {@code quota.redis.timeout}) would be refused in doubt and spoil the count.
     */
    private static final Duration FILL_TIMEOUT = Duration.ofSeconds(30);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private RespClient resp;

    /** Every test starts with an empty Redis and fresh stats: it counts keys and expirations. */
    @BeforeEach
    void freshRedis() {
        redis.server().restart();
        resp = RespClient.connect(redis.server().host(), redis.server().port());
    }

    @AfterEach
    void closeClient() {
        resp.close();
    }

    @Test
    void everyKeyExpires_noLaterThanItsTimeToRefillFullyPlusTheMargin() {
        MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
        Duration margin = Duration.ofSeconds(60);
        BucketSpec spec = BucketSpec.of(List.of(
                new Limit("burst", 20, Refill.greedy(10, Duration.ofSeconds(1))),
                new Limit("hourly", 100, Refill.greedy(100, Duration.ofHours(1)))), 1);
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).clock(clock).expiryMargin(margin).build()) {
            BucketKey key = new BucketKey("quota:p:ttl");
            for (int uses = 1; uses <= 20; uses++) {
                ConsumeResult result = store.tryConsume(key, spec, 1);
                long pttl = (Long) resp.command("PTTL", key.value());

                // the hourly limit refills last: 36 s per token used
                assertThat(pttl).as("PTTL after %d uses", uses).isPositive()
                        .isLessThanOrEqualTo(Duration.ofNanos(result.nanosToFull()).plus(margin).toMillis());
                assertThat(result.nanosToFull()).isEqualTo(Duration.ofSeconds(36).multipliedBy(uses).toNanos());
            }
        }
    }

    @Test
    void hundredThousandCustomers_areGoneAfterTheirTtl_andCostAFewHundredBytesEach() throws Exception {
        BucketSpec spec = BucketSpec.of(List.of(new Limit("burst", 1, Refill.greedy(1, Duration.ofSeconds(1)))), 1);
        long baseline = usedMemory();

        // memory: 10,000 customers whose keys live a minute
        int measured = 10_000;
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).timeout(FILL_TIMEOUT)
                .expiryMargin(Duration.ofSeconds(60)).build()) {
            consumeOnce(store, spec, "m", measured);
        }
        long keys = resp.dbSize();
        long perKey = (usedMemory() - baseline) / keys;
        long valueBytes = (Long) resp.command("STRLEN", customerKey("m", 0).value());
        System.out.printf("memory: %d bucket keys (one per customer, 1 limit) use %d bytes each in Redis"
                + " (used_memory delta; the value is %d bytes)%n", keys, perKey, valueBytes);
        assertThat(keys).isEqualTo(measured);
        // a range: used_memory includes the allocator's rounding and Redis' own bookkeeping, which vary by version
        assertThat(perKey).isBetween(60L, 400L);
        resp.flushAll();

        // expiry: 100,000 customers, capacity 1 refilled in 1 s, margin 1 s: each key lives 2 s
        int customers = 100_000;
        long started = System.nanoTime();
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).timeout(FILL_TIMEOUT)
                .expiryMargin(Duration.ofSeconds(1)).build()) {
            consumeOnce(store, spec, "e", customers);
        }
        long consumedMillis = (System.nanoTime() - started) / 1_000_000;
        long left = resp.dbSize();
        // Redis expires keys by its own clock: a bounded wait in real time is the only way
        Await.until(Duration.ofSeconds(15), () -> resp.dbSize() == 0, () -> "every key to expire");
        long goneMillis = (System.nanoTime() - started) / 1_000_000 - consumedMillis;
        System.out.printf("expiry: %d customers consumed in %d ms (%d keys alive at the end), all gone %d ms later%n",
                customers, consumedMillis, left, goneMillis);
        assertThat(resp.dbSize()).isZero();
        assertThat(Long.parseLong(infoField(resp.info("stats"), "expired_keys"))).isGreaterThanOrEqualTo(customers);
    }

    private static void consumeOnce(RedisStore store, BucketSpec spec, String prefix, int customers) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<Integer>> parts = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int first = t;
                parts.add(pool.submit(() -> {
                    int consumed = 0;
                    for (int i = first; i < customers; i += THREADS) {
                        consumed += store.tryConsume(customerKey(prefix, i), spec, 1).tokensTaken() ? 1 : 0;
                    }
                    return consumed;
                }));
            }
            int consumed = 0;
            for (Future<Integer> part : parts) {
                consumed += part.get(60, TimeUnit.SECONDS);
            }
            assertThat(consumed).isEqualTo(customers);
        } finally {
            pool.shutdownNow();
        }
    }

    /** A plan key as the service builds it: {@code quota:p:} and 22 characters of hash. */
    private static BucketKey customerKey(String prefix, int i) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest((prefix + i).getBytes(StandardCharsets.UTF_8));
            return new BucketKey("quota:p:" + Base64.getUrlEncoder().withoutPadding().encodeToString(digest).substring(0, 22));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private long usedMemory() {
        return Long.parseLong(infoField(resp.info("memory"), "used_memory"));
    }

    private static String infoField(String info, String name) {
        for (String line : info.split("\r\n", -1)) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1);
            }
        }
        throw new IllegalStateException("no " + name + " in INFO");
    }
}
