package dev.quota.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.FailurePolicy;
import dev.quota.core.QuotaDecision.Outcome;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.core.resilience.CircuitBreakerStore;
import dev.quota.core.resilience.CircuitBreakerStore.State;
import dev.quota.core.resilience.DecisionLoad;
import dev.quota.core.resilience.DecisionLoad.Sample;
import dev.quota.core.resilience.OnePlan;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.Take;
import dev.quota.core.store.ForwardingStore;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.Await;
import dev.quota.testkit.RedisExtension;
import dev.quota.testkit.RedisSentinelTopology;
import dev.quota.testkit.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Sentinel-managed master is killed while 8 callers hammer one customer (capacity 20, 20 per
 * second, policy LOCAL); the replica is promoted and decisions go back to Redis. Real time: a
 * failover takes seconds and the bucket refills by the wall clock.
 *
 * <p>Bounded on both sides. Above: Redis admits no more than its bucket gives over the run (plus the
 * few writes the killed master acknowledged without replicating them), the local fallback no more
 * than its share over the switch. Below: Redis admits its full bucket before the kill and again
 * after the breaker closes (the bucket refilled meanwhile), and during the switch the breaker answers
 * at once, so the local fallback hands out its full bucket; a run that admits nothing fails.
 */
class SentinelFailoverTest {

    private static final long CAPACITY = 20;
    private static final long PER_SECOND = 20;
    private static final int CALLERS = 8;
    /** How long the load runs before the kill and after the breaker closes. */
    private static final Duration STEADY = Duration.ofSeconds(1);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.sentinel();

    @Test
    void masterKilledUnderLoad_decisionsContinueAfterPromotion_andAdmittedStaysWithinLimitPlusLocalShare()
            throws Exception {
        RedisSentinelTopology topology = redis.sentinelTopology();
        RedisStore redisStore = RedisStore.builder().sentinel(topology.masterName(), topology.sentinelAddresses())
                .timeout(Duration.ofMillis(250)).build();
        List<State> transitions = new CopyOnWriteArrayList<>();
        CircuitBreakerStore breaker = CircuitBreakerStore.builder(redisStore).healthCheck(redisStore::ping)
                .listener((from, to) -> transitions.add(to)).build();
        CountingStore local = new CountingStore(InMemoryStore.builder().build());
        QuotaService service = QuotaService.builder().store(breaker).fallback(local)
                .config(OnePlan.config("free", CAPACITY, Refill.greedy(PER_SECOND, Duration.ofSeconds(1)),
                        FailurePolicy.LOCAL))
                .build();
        DecisionLoad load = new DecisionLoad(service, CALLERS, 1, Duration.ofMillis(2), "before");
        long started = System.nanoTime();
        load.start();
        runFor(STEADY);

        long localBeforeKill = local.admitted();
        load.phase("switch");
        long killed = System.nanoTime();
        RedisServer promoted = topology.failover();
        long promotedAt = System.nanoTime();
        boolean closed = within(Duration.ofSeconds(15), () -> breaker.state() == State.CLOSED, "the breaker to close");
        long closedAt = System.nanoTime();
        long localBeforeSettling = local.admitted();
        load.phase("after");
        runFor(STEADY);
        boolean finished = load.stop(Duration.ofSeconds(10));
        long ended = System.nanoTime();

        List<Sample> samples = load.samples();
        long admitted = allowed(samples, null);
        long admittedLocally = local.admitted();
        long admittedByRedis = admitted - admittedLocally;
        long byRedisBeforeKill = allowed(samples, "before") - localBeforeKill;
        long byRedisAfterClosing = allowed(samples, "after") - (admittedLocally - localBeforeSettling);
        long locallyDuringSwitch = localBeforeSettling - localBeforeKill;
        long decisionsDuringSwitch = samples.stream().filter(s -> s.phase().equals("switch")).count();
        double seconds = (ended - started) / 1e9;
        double windowSeconds = (closedAt - killed) / 1e9;
        long limit = CAPACITY + (long) Math.ceil(PER_SECOND * seconds);
        // + 1: the window is measured by polling every 50 ms
        long localShare = CAPACITY + (long) Math.ceil(PER_SECOND * (windowSeconds + 0.05)) + 1;
        System.out.printf("sentinel failover: promoted %s %.2f s after the kill, breaker closed after %.2f s;"
                        + " run %.2f s, %d decisions (%d during the switch); admitted %d (Redis %d: %d before the"
                        + " kill, %d after closing; local %d, %d during the switch); limit over the run %d,"
                        + " local share over the window %d; breaker %s%n",
                promoted.uri(), (promotedAt - killed) / 1e9, windowSeconds, seconds, samples.size(),
                decisionsDuringSwitch, admitted, admittedByRedis, byRedisBeforeKill, byRedisAfterClosing,
                admittedLocally, locallyDuringSwitch, limit, localShare, transitions);
        service.close();

        assertThat(finished).isTrue();
        assertThat(load.errors()).isEmpty();
        // below: Redis gave its full bucket before the kill, and again once the breaker closed
        assertThat(byRedisBeforeKill).as("admitted by Redis before the kill").isGreaterThanOrEqualTo(CAPACITY);
        assertThat(byRedisAfterClosing).as("admitted by Redis after the breaker closed")
                .isGreaterThanOrEqualTo(CAPACITY);
        // below: during the switch the breaker opened and answered, and the fallback gave its bucket
        assertThat(transitions).as("the breaker opened during the switch, then closed")
                .containsSubsequence(State.OPEN, State.CLOSED);
        assertThat(locallyDuringSwitch).as("admitted locally during the switch").isGreaterThanOrEqualTo(CAPACITY);
        assertThat(closed).as("the breaker closed within 15 s of the promotion").isTrue();
        assertThat(breaker.state()).as("Redis serves decisions again after the promotion").isEqualTo(State.CLOSED);
        assertThat(local.admitted()).as("no local decision once the breaker closed").isEqualTo(localBeforeSettling);
        // above: what Redis admitted is bounded by its bucket, give or take the writes the killed master
        // acknowledged but had not replicated yet (at most one in flight per caller)
        assertThat(admittedByRedis).isLessThanOrEqualTo(limit + CALLERS);
        assertThat(admittedLocally).isLessThanOrEqualTo(localShare);
        assertThat(admitted).isLessThanOrEqualTo(limit + localShare + CALLERS);
    }

    private static long allowed(List<Sample> samples, String phase) {
        return samples.stream().filter(s -> phase == null || s.phase().equals(phase))
                .filter(s -> s.outcome() == Outcome.ALLOWED).count();
    }

    /** Lets the load run for {@code duration} of real time: a phase of the run, not a wait for a state. */
    private static void runFor(Duration duration) {
        long end = System.nanoTime() + duration.toNanos();
        // a park returns early on a permit left over (the store's combining unparks its callers)
        for (long left = duration.toNanos(); left > 0; left = end - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    /** {@link Await#until}, answering whether it held instead of throwing, so the load is stopped either way. */
    private static boolean within(Duration timeout, BooleanSupplier condition, String what) {
        try {
            Await.until(timeout, condition, () -> what);
            return true;
        } catch (IllegalStateException timedOut) {
            System.out.println(timedOut.getMessage());
            return false;
        }
    }

    /** A real in-JVM store that counts the tokens it hands out: the local policy's admissions. */
    private static final class CountingStore extends ForwardingStore {
        private final AtomicLong admitted = new AtomicLong();

        CountingStore(InMemoryStore delegate) {
            super(delegate);
        }

        long admitted() {
            return admitted.get();
        }

        @Override
        protected void before(String operation) {
        }

        @Override
        public List<ConsumeResult> tryConsume(List<Take> takes) {
            List<ConsumeResult> results = delegate.tryConsume(takes);
            if (results.get(0).tokensTaken()) {
                admitted.incrementAndGet();
            }
            return results;
        }

        @Override
        public void addTokens(BucketKey key, BucketSpec spec, long tokens) {
            admitted.decrementAndGet();
            delegate.addTokens(key, spec, tokens);
        }

        @Override
        public void releaseLease(BucketKey key, BucketSpec spec, long lease) {
            delegate.releaseLease(key, spec, lease);
        }
    }
}
