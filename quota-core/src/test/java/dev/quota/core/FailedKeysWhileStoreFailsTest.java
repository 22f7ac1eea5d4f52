package dev.quota.core;

import static dev.quota.core.Configs.config;
import static dev.quota.core.Configs.greedy;
import static dev.quota.core.Configs.plan;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Caller.Kind;
import dev.quota.core.net.ClientAddresses;
import dev.quota.core.store.ForwardingStore;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Key guessing while the shared count cannot be read, on a frozen clock: a store call that times
 * out (no outage established yet) and an established outage both count the guess in this JVM, on
 * this instance's share of the limit, so the documented 10 holds in every phase.
 */
class FailedKeysWhileStoreFailsTest {

    private final MutableClock clock = MutableClock.at("2026-12-03T10:00:00Z");
    private final QuotaConfig config = config(plan("free", greedy("burst", 5, 1, Duration.ofHours(1))),
            plan("anonymous", greedy("burst", 5, 1, Duration.ofHours(1))));

    /** An in-JVM store whose calls fail while {@link #failure} is set: the way the breaker reports them. */
    private static final class FailingStore extends ForwardingStore {
        final AtomicInteger calls = new AtomicInteger();
        volatile QuotaStoreException failure;

        FailingStore(MutableClock clock) {
            super(InMemoryStore.builder().clock(clock).build());
        }

        @Override
        protected void before(String operation) {
            calls.incrementAndGet();
            QuotaStoreException e = failure;
            if (e != null) {
                throw e;
            }
        }
    }

    private QuotaService service(FailingStore store, int instances, int rank) {
        return QuotaService.builder().store(store).config(config).clock(clock)
                .liveInstances(() -> instances, () -> rank).build();
    }

    private static Caller guess(QuotaService service, int i) {
        return service.identify(RequestFacts.of(Credential.apiKey("guess-" + i), ClientAddresses.parse("203.0.113.7")));
    }

    @Test
    void callsThatTimeOut_beforeTheOutageIsEstablished_countTenGuessesLocally_thenBlock_regressionFor68x401() {
        FailingStore store = new FailingStore(clock);
        store.failure = new QuotaStoreException("timed out after 2000 ms (test)");
        QuotaService service = service(store, 1, 0);
        for (int i = 0; i < 10; i++) {
            assertThat(guess(service, i).kind()).as("guess %d", i + 1).isEqualTo(Kind.UNKNOWN_CREDENTIAL);
        }

        Caller eleventh = guess(service, 10);

        assertThat(eleventh.kind()).isEqualTo(Kind.BLOCKED);
        assertThat(eleventh.refusal().retryAfter()).isEqualTo(Duration.ofSeconds(6));
        assertThat(eleventh.refusal().fallback().kind()).isEqualTo(QuotaDecision.Fallback.Kind.LOCAL);
        assertThat(store.calls.get()).as("the 11th is refused from memory, without a store call").isEqualTo(11);
    }

    @Test
    void establishedOutage_overFourInstances_rankOneHoldsThreeGuesses_rankThreeTwo() {
        FailingStore rankOneStore = new FailingStore(clock);
        FailingStore rankThreeStore = new FailingStore(clock);
        rankOneStore.failure = QuotaStoreException.outage("store down (test)");
        rankThreeStore.failure = QuotaStoreException.outage("store down (test)");
        QuotaService rankOne = service(rankOneStore, 4, 1);
        QuotaService rankThree = service(rankThreeStore, 4, 3);

        assertThat(java.util.stream.IntStream.range(0, 5).mapToObj(i -> guess(rankOne, i).kind()))
                .containsExactly(Kind.UNKNOWN_CREDENTIAL, Kind.UNKNOWN_CREDENTIAL, Kind.UNKNOWN_CREDENTIAL,
                        Kind.BLOCKED, Kind.BLOCKED);
        assertThat(java.util.stream.IntStream.range(0, 4).mapToObj(i -> guess(rankThree, i).kind()))
                .containsExactly(Kind.UNKNOWN_CREDENTIAL, Kind.UNKNOWN_CREDENTIAL, Kind.BLOCKED, Kind.BLOCKED);
    }

    @Test
    void instanceWithoutAShare_blocksTheFirstGuess_insteadOfAnswering401Forever() {
        FailingStore store = new FailingStore(clock);
        store.failure = QuotaStoreException.outage("store down (test)");
        QuotaService rankTwelveOfSixteen = service(store, 16, 12);

        Caller first = guess(rankTwelveOfSixteen, 0);

        assertThat(first.kind()).isEqualTo(Kind.BLOCKED);
        assertThat(first.refusal().retryAfter()).as("one guess of the whole limit").isEqualTo(Duration.ofSeconds(6));
    }

    @Test
    void storeAnsweringAgain_countsInTheSharedStoreFromWhatItHeld() {
        FailingStore store = new FailingStore(clock);
        QuotaService service = service(store, 1, 0);
        for (int i = 0; i < 4; i++) {
            assertThat(guess(service, i).kind()).isEqualTo(Kind.UNKNOWN_CREDENTIAL);
        }
        store.failure = new QuotaStoreException("timed out (test)");
        for (int i = 4; i < 14; i++) {
            assertThat(guess(service, i).kind()).as("locally, guess %d", i - 3).isEqualTo(Kind.UNKNOWN_CREDENTIAL);
        }
        assertThat(guess(service, 14).kind()).isEqualTo(Kind.BLOCKED);
        store.failure = null;
        clock.advance(Duration.ofSeconds(6)); // the local block's time; one guess back in the shared count too

        assertThat(guess(service, 15).kind()).as("the shared count held 6 and got one back").isEqualTo(Kind.UNKNOWN_CREDENTIAL);
    }
}
