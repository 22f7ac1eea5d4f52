package dev.quota.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.core.resilience.OnePlan;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisExtension;
import dev.quota.testkit.RedisServer;
import dev.quota.testkit.RespClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Three instances share one Redis; the third one's clock runs 5 s ahead. Time is driven by hand:
 * every instance's local clock is the same {@link MutableClock} or, under a {@link RedisTimeClock}
 * (whose offset to Redis must not depend on when it was sampled), the same {@link SteppingClock};
 * the third one's is shifted by 5 s.
 */
class RedisTimeClockTest {

    private static final Duration SKEW = Duration.ofSeconds(5);
    private static final Duration NO_RESYNC = Duration.ofHours(1);
    /** Capacity 100, refill 10 per second, for 6 s (plus the real time the run takes). */
    private static final long CAPACITY = 100;
    private static final long PER_SECOND = 10;
    private static final int SECONDS = 6;

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private final MutableClock local = MutableClock.at("2026-11-29T10:00:00Z");
    private final SteppingClock stepping = new SteppingClock();
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
        try (RespClient resp = RespClient.connect(redis.server().host(), redis.server().port())) {
            resp.flushAll();
        }
    }

    private QuotaService instance(Clock clock) {
        RedisStore store = RedisStore.builder().uri(redis.uri()).clock(clock).build();
        QuotaService service = QuotaService.builder().store(store).clock(clock)
                .config(OnePlan.config("free", CAPACITY, Refill.greedy(PER_SECOND, Duration.ofSeconds(1)), FailurePolicy.CLOSED))
                .build();
        closeables.add(service);
        return service;
    }

    private RedisTimeClock redisTime(Clock localClock) {
        return RedisTimeClock.builder().local(localClock).resyncInterval(NO_RESYNC).build();
    }

    /**
     * Every 100 ms instances a and b take 5 requests each; once a second (half-way through it, so
     * the others can spend what it finds) instance c takes one: ten times what the limit allows,
     * so the count of admitted requests is what the bucket hands out.
     *
     * @return admitted requests, and the limit over the run as {@code reference} measured it
     */
    private long[] run(QuotaService a, QuotaService b, QuotaService c, Clock reference, Consumer<Duration> advance) {
        Customer alice = Customer.of("alice", "free");
        long admitted = 0;
        Instant start = reference.instant();
        for (int step = 1; step <= SECONDS * 10; step++) {
            advance.accept(Duration.ofMillis(100));
            for (int i = 0; i < 5; i++) {
                admitted += a.decide(alice, null).allowed() ? 1 : 0;
                admitted += b.decide(alice, null).allowed() ? 1 : 0;
            }
            if (step % 10 == 5) {
                admitted += c.decide(alice, null).allowed() ? 1 : 0;
            }
        }
        Duration elapsed = Duration.between(start, reference.instant());
        return new long[] {admitted, CAPACITY + PER_SECOND * elapsed.toMillis() / 1000};
    }

    @Test
    void skewedInstance_withRedisTimeClock_admitsNoMoreThanTheLimit() {
        RedisTimeClock clockA = redisTime(stepping);
        RedisTimeClock clockB = redisTime(stepping);
        RedisTimeClock clockC = redisTime(Clock.offset(stepping, SKEW));
        QuotaService a = instance(clockA);
        QuotaService b = instance(clockB);
        QuotaService c = instance(clockC);
        try (RespClient resp = RespClient.connect(redis.server().host(), redis.server().port())) {
            // Redis runs on this host, on the system clock the stepping clock also runs on: each
            // clock, resampled between two reads of Redis TIME, reads that span's time, give or take
            // half a sample's round trip, itself within the span. c's 5 s of skew is gone.
            Instant before = redisTime(resp);
            assertThat(clockA.resync()).isTrue();
            assertThat(clockC.resync()).isTrue();
            Instant readA = clockA.instant();
            Instant readC = clockC.instant();
            Instant after = redisTime(resp);
            Duration span = Duration.between(before, after);
            assertThat(readA).isBetween(before.minus(span), after.plus(span));
            assertThat(readC).isBetween(before.minus(span), after.plus(span));
        }

        long[] run = run(a, b, c, clockA, stepping::advance);

        System.out.printf("clock skew 5 s, Redis time: admitted %d of a limit of %d over the run%n", run[0], run[1]);
        // never above the limit; and not far below it, or the run would prove nothing (a range: the
        // stepping clock also runs in real time, so the limit over the run depends on how long it took)
        assertThat(run[0]).isLessThanOrEqualTo(run[1]).isGreaterThanOrEqualTo(run[1] * 9 / 10);
    }

    @Test
    void skewedInstance_withLocalClocks_admitsExtra() {
        // frozen time here, so that the count does not depend on how fast this machine is
        QuotaService a = instance(local);
        QuotaService b = instance(local);
        QuotaService c = instance(Clock.offset(local, SKEW));

        long[] run = run(a, b, c, local, local::advance);

        System.out.printf("clock skew 5 s, local clocks: admitted %d of a limit of %d over the run%n", run[0], run[1]);
        // c's first visit finds 5 s of refill (50 tokens) the others' clocks had not granted yet;
        // a bucket's refill time never goes backwards, so from then on the bucket runs on c's
        // clock: an extra of up to min(capacity, skew x rate), here 50; 40 of them are spent by
        // the end of the run (the rest is refill granted ahead of the others' clocks)
        assertThat(run[0]).isGreaterThan(run[1] + 25);
    }

    @Test
    void offset_matchesRedisTime_andDecisionsDoNotAskRedis() {
        RedisTimeClock clock = redisTime(local);
        RedisStore store = RedisStore.builder().uri(redis.uri()).clock(clock).build();
        closeables.add(store);
        try (RespClient resp = RespClient.connect(redis.server().host(), redis.server().port())) {
            // the local clock is frozen: the clock reads Redis TIME as sampled, corrected by half a
            // round trip of the sample, which lies between two reads of TIME
            Instant before = redisTime(resp);
            assertThat(clock.resync()).isTrue();
            Instant after = redisTime(resp);
            assertThat(clock.instant()).isBetween(before, after.plus(Duration.between(before, after)));
            long evals = resp.commandStats().getOrDefault("eval", 0L);

            for (int i = 0; i < 1000; i++) {
                clock.instant();
            }

            assertThat(resp.commandStats().getOrDefault("eval", 0L)).isEqualTo(evals);
        }
    }

    @Test
    void whileRedisIsDown_keepsTheLastOffset() {
        RedisServer own = RedisServer.start();
        try {
            RedisTimeClock clock = redisTime(local);
            RedisStore store = RedisStore.builder().uri(own.uri()).clock(clock).build();
            closeables.add(store);
            Duration offset = clock.offset();

            own.kill();

            assertThat(clock.resync()).isFalse();
            assertThat(clock.offset()).isEqualTo(offset);
            assertThat(offset).isNotEqualTo(Duration.ZERO); // the local clock is frozen; Redis' is not
        } finally {
            own.close();
        }
    }

    @Test
    void aClockSharedByTwoStores_isAttachedToTheFirstOnly() {
        RedisTimeClock clock = redisTime(local);
        RedisStore first = RedisStore.builder().uri(redis.uri()).clock(clock).build();
        RedisStore second = RedisStore.builder().uri(redis.uri()).clock(clock).build();

        second.close();
        assertThat(clock.resync()).isTrue();
        first.close();
        assertThat(clock.resync()).isFalse();
    }

    @Test
    void withZone_sharesTheOffset() {
        RedisTimeClock clock = redisTime(local);
        RedisStore store = RedisStore.builder().uri(redis.uri()).clock(clock).build();
        closeables.add(store);

        Clock berlin = clock.withZone(ZoneId.of("Europe/Berlin"));

        assertThat(berlin.instant()).isEqualTo(clock.instant());
        assertThat(berlin.getZone()).isEqualTo(ZoneId.of("Europe/Berlin"));
    }

    /** Redis TIME, read by a plain client. */
    private static Instant redisTime(RespClient resp) {
        List<?> time = (List<?>) resp.command("TIME");
        return Instant.ofEpochSecond(Long.parseLong((String) time.get(0)), Long.parseLong((String) time.get(1)) * 1_000);
    }

    /** The system clock plus an offset the test moves forward: hand-driven time that also runs. */
    private static final class SteppingClock extends Clock {
        private final AtomicLong addedNanos = new AtomicLong();

        void advance(Duration amount) {
            addedNanos.addAndGet(amount.toNanos());
        }

        @Override
        public Instant instant() {
            return Instant.now().plusNanos(addedNanos.get());
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException("UTC only");
        }
    }
}
