package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RawHttp;
import dev.quota.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Key guessing over HTTP while Redis is frozen (SIGSTOP), from the moment it stops: one demo
 * instance at the product's Redis timeout (2 s), eight connections from one address sending unknown
 * keys. While the outage is being established (calls that time out, then the open breaker before
 * its check has failed) and once it is, the failed-key limit of 10 is counted in this JVM: exactly
 * 10 answers of 401, then 429. Before the local count, this phase answered 68 guesses 401.
 */
class KeyGuessingDuringOutageTest {

    private static final String GUESSER = "127.0.0.71";
    private static final String LEGITIMATE = "127.0.0.72";
    private static final int CONNECTIONS = 8;

    /** One guess: its status and whether the outage was established when it was answered. */
    record Guess(int status, boolean established) {
    }

    @Test
    void redisFrozen_oneInstance_answersExactlyTen401_then429_whileTheOutageIsEstablishedAndAfter_regressionFor68()
            throws Exception {
        var settings = new DemoApp.Settings(Configs.bundled(), null, "127.0.0.1", 0, 1, Duration.ofSeconds(2),
                MutableClock.at("2026-12-03T10:00:00Z"));
        List<Guess> guesses = new CopyOnWriteArrayList<>();
        try (RedisServer redis = RedisServer.start();
             DemoApp app = DemoApp.start(new DemoApp.Settings(settings.config(), redis.uri(), settings.host(),
                     settings.port(), settings.instances(), settings.redisTimeout(), settings.clock()))) {
            int port = app.baseUris().get(0).getPort();
            assertThat(RawHttp.get(GUESSER, port, "/api/v1/rates").status()).as("Redis answers").isEqualTo(200);
            long legitimateWorst;
            try (LegitimateCaller legitimate = LegitimateCaller.start(LEGITIMATE, port)) {
                redis.freeze();
                try {
                    CountDownLatch start = new CountDownLatch(1);
                    AtomicInteger next = new AtomicInteger();
                    List<Thread> threads = new ArrayList<>();
                    for (int i = 0; i < CONNECTIONS; i++) {
                        Thread thread = new Thread(() -> {
                            try {
                                start.await(60, TimeUnit.SECONDS);
                                int afterOutage = 0;
                                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                                while (afterOutage < 5 && System.nanoTime() < deadline) {
                                    int status = RawHttp.get(GUESSER, port, "/api/v1/rates", "X-API-Key",
                                            "demo-guess-" + next.incrementAndGet()).status();
                                    boolean established = app.services().get(0).admin().store().outage();
                                    guesses.add(new Guess(status, established));
                                    afterOutage += established ? 1 : 0;
                                }
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }, "guesser-" + i);
                        threads.add(thread);
                        thread.start();
                    }
                    start.countDown();
                    for (Thread thread : threads) {
                        thread.join(90_000);
                    }
                } finally {
                    redis.thaw();
                }
                legitimateWorst = legitimate.worstMillis();
            }

            long unauthorized = guesses.stream().filter(g -> g.status() == 401).count();
            long blockedBeforeOutage = guesses.stream().filter(g -> g.status() == 429 && !g.established()).count();
            System.out.printf("key guessing, Redis frozen, 1 instance: %d guesses, %d x 401, %d x 429 before the outage"
                            + " was established; the other customer's worst latency %d ms%n", guesses.size(),
                    unauthorized, blockedBeforeOutage, legitimateWorst);
            assertThat(guesses).extracting(Guess::status).containsOnly(401, 429);
            assertThat(unauthorized).as("401 answers: the documented limit of 10").isEqualTo(10);
            assertThat(blockedBeforeOutage).as("429 answered while the outage was still being established")
                    .isPositive();
            // not the guesser's doing: until the breaker opens, the other customer waits for the frozen
            // Redis like everyone, up to two 2 s timeouts (its key's first request from its address looks
            // for a block set elsewhere, then decides); a second of margin for a loaded machine
            assertThat(legitimateWorst).as("the other customer's worst latency, ms").isLessThan(5_000);
        }
    }
}
