package dev.quota.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Caller;
import dev.quota.core.Credential;
import dev.quota.core.FailurePolicy;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.core.RequestFacts;
import dev.quota.core.resilience.CircuitBreakerStore;
import dev.quota.core.resilience.OnePlan;
import dev.quota.testkit.Await;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisExtension;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Key guessing while Redis is frozen (SIGSTOP) and the outage is still being established: four
 * instances, each with its own Redis client, breaker (health check {@code ping}) and
 * {@link InstanceRegistry}, at the product defaults (2 s timeout, breaker after 5 failures, 250 ms
 * probes). One address guesses on all four at once, from the moment Redis stops. The failed-key
 * limit (10 a minute) is counted in each JVM on its share (ranks 0 and 1 hold 3 guesses, ranks 2
 * and 3 hold 2) whenever Redis cannot be read: through the calls that time out, the open breaker
 * before the check has failed, and the established outage. Bucket time is frozen, so the counts
 * are exact: 10 unknown-key answers in all, then only blocks.
 */
class KeyGuessingDuringOutageTest {

    private static final int INSTANCES = 4;
    private static final int GUESSERS_PER_INSTANCE = 3;
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    /** One guess: the instance, who answered, and whether the outage was established when it was answered. */
    record Guess(int instance, Caller.Kind kind, boolean established) {
    }

    private final MutableClock bucketTime = MutableClock.at("2026-12-03T10:00:00Z");
    private final List<QuotaService> services = new ArrayList<>();
    private final List<CircuitBreakerStore> breakers = new ArrayList<>();
    private final List<InstanceRegistry> registries = new ArrayList<>();
    private final List<Guess> guesses = new CopyOnWriteArrayList<>();
    private final List<Throwable> errors = new CopyOnWriteArrayList<>();

    @AfterEach
    void stopAll() {
        if (redis.server().isRunning()) {
            redis.server().thaw();
        }
        registries.forEach(InstanceRegistry::close);
        services.forEach(QuotaService::close);
    }

    @Test
    void redisFrozen_fourInstances_answerExactlyTenUnknownKeys_thenBlock_inEveryPhaseOfTheOutage() throws Exception {
        for (int i = 0; i < INSTANCES; i++) {
            RedisStore store = RedisStore.builder().uri(redis.uri()).clock(bucketTime).build();
            CircuitBreakerStore breaker = CircuitBreakerStore.builder(store).healthCheck(store::ping).build();
            InstanceRegistry registry = InstanceRegistry.builder(store.client()).build();
            breakers.add(breaker);
            registries.add(registry);
            services.add(QuotaService.builder().store(breaker).clock(bucketTime)
                    .config(OnePlan.config("free", 100, Refill.greedy(100, Duration.ofMinutes(1)), FailurePolicy.LOCAL))
                    .liveInstances(registry::liveInstances, registry::rank).build());
        }
        Await.until(PATIENCE, () -> registries.stream().allMatch(r -> r.liveInstances() == INSTANCES),
                () -> "every registry counts " + INSTANCES + " instances");
        InetAddress guesser = InetAddress.getByName("198.51.100.7");

        redis.server().freeze();
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger next = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < INSTANCES; i++) {
            for (int t = 0; t < GUESSERS_PER_INSTANCE; t++) {
                int instance = i;
                Thread thread = new Thread(() -> guess(instance, guesser, start, next), "guesser-" + i + "-" + t);
                threads.add(thread);
                thread.start();
            }
        }
        start.countDown();
        for (Thread thread : threads) {
            thread.join(PATIENCE.toMillis());
        }

        Map<Integer, Long> unknownPerInstance = guesses.stream()
                .filter(g -> g.kind() == Caller.Kind.UNKNOWN_CREDENTIAL)
                .collect(Collectors.groupingBy(Guess::instance, Collectors.counting()));
        long unknownBeforeOutage = guesses.stream()
                .filter(g -> g.kind() == Caller.Kind.UNKNOWN_CREDENTIAL && !g.established()).count();
        long blockedBeforeOutage = guesses.stream()
                .filter(g -> g.kind() == Caller.Kind.BLOCKED && !g.established()).count();
        System.out.printf("key guessing, Redis frozen, %d instances: %d guesses; unknown-key answers per instance %s"
                        + " (%d before the outage was established); %d blocked before it was established%n",
                INSTANCES, guesses.size(), unknownPerInstance, unknownBeforeOutage, blockedBeforeOutage);
        assertThat(errors).isEmpty();
        assertThat(guesses).extracting(Guess::kind).containsOnly(Caller.Kind.UNKNOWN_CREDENTIAL, Caller.Kind.BLOCKED);
        assertThat(unknownPerInstance).as("each instance's share of 10: ranks 0 and 1 hold 3, ranks 2 and 3 hold 2")
                .containsOnlyKeys(0, 1, 2, 3);
        assertThat(unknownPerInstance.values().stream().mapToLong(Long::longValue).sum())
                .as("unknown-key answers over the four instances").isEqualTo(10);
        assertThat(unknownPerInstance.values()).containsExactlyInAnyOrder(3L, 3L, 2L, 2L);
        assertThat(blockedBeforeOutage).as("blocks answered while the outage was still being established")
                .isPositive();
        assertThat(guesses).as("every instance blocked once the outage was established")
                .filteredOn(Guess::established).isNotEmpty()
                .allSatisfy(g -> assertThat(g.kind()).isEqualTo(Caller.Kind.BLOCKED));
    }

    /** Guesses on {@code instance} until it has answered 5 guesses with the outage established. */
    private void guess(int instance, InetAddress from, CountDownLatch start, AtomicInteger next) {
        try {
            start.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
            int afterOutage = 0;
            long deadline = System.nanoTime() + PATIENCE.toNanos();
            while (afterOutage < 5 && System.nanoTime() < deadline) {
                Caller caller = services.get(instance).identify(RequestFacts.of(
                        Credential.apiKey("guess-" + next.incrementAndGet() + "-0123456789abcdef"), from));
                boolean established = breakers.get(instance).outage();
                guesses.add(new Guess(instance, caller.kind(), established));
                afterOutage += established ? 1 : 0;
                LockSupport.parkNanos(2_000_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            errors.add(e);
        }
    }
}
