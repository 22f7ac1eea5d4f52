package dev.quota.core;

import static dev.quota.core.Configs.config;
import static dev.quota.core.Configs.greedy;
import static dev.quota.core.Configs.plan;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.QuotaDecision.Outcome;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class QuotaListenerTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final SwitchableStore store = new SwitchableStore(clock);
    private final Customer alice = Customer.of("alice", "free");
    private final Recorder recorder = new Recorder();

    /** Records every call as text. */
    static final class Recorder implements QuotaListener {
        final List<String> events = new CopyOnWriteArrayList<>();
        final List<Duration> elapsed = new CopyOnWriteArrayList<>();

        @Override
        public void onDecision(Customer customer, @Nullable String limits, QuotaDecision decision, Duration took) {
            events.add("decision " + customer.id() + " " + limits + " " + decision.outcome()
                    + (decision.violated() == null ? "" : " " + decision.violated().policy()));
            elapsed.add(took);
        }

        @Override
        public void onFailedKey(QuotaDecision decision) {
            events.add("failedKey " + decision.outcome());
        }

        @Override
        public void onStoreFailure(RuntimeException e) {
            events.add("storeFailure " + e.getMessage());
        }

        @Override
        public void onFallback(boolean active) {
            events.add("fallback " + active);
        }

        @Override
        public void onReload(boolean applied, long version) {
            events.add("reload " + applied + " " + version);
        }
    }

    private QuotaService service(QuotaConfig config, QuotaListener... listeners) {
        var builder = QuotaService.builder().store(store).config(config).clock(clock);
        for (QuotaListener listener : listeners) {
            builder.listener(listener);
        }
        return builder.build();
    }

    @Test
    void decide_tellsTheListenerOutcomeRulePolicyAndElapsed() {
        Rule export = Rule.builder("export").build();
        QuotaService service = service(config(List.of(plan("free", greedy("burst", 1, 1, Duration.ofHours(1)))),
                List.of(export), List.of()), recorder);

        service.decide(alice, "export");
        service.decide(alice, null);

        assertThat(recorder.events).containsExactly("decision alice export ALLOWED",
                "decision alice null REJECTED free-burst");
        assertThat(recorder.elapsed).allSatisfy(d -> assertThat(d).isPositive());
    }

    @Test
    void storeOutage_underLocalPolicy_reportsFailuresAndFallbackOnThenOff() {
        QuotaService service = service(config(plan("free", greedy("burst", 10, 1, Duration.ofHours(1)))), recorder);
        service.decide(alice, null);

        store.failing = true;
        service.decide(alice, null);
        service.decide(alice, null);
        store.failing = false;
        service.decide(alice, null);

        assertThat(recorder.events).containsExactly(
                "decision alice null ALLOWED",
                "storeFailure store down (test)", "fallback true", "decision alice null ALLOWED",
                "storeFailure store down (test)", "decision alice null ALLOWED",
                "fallback false", "decision alice null ALLOWED");
    }

    @Test
    void reload_reportsAppliedAndRejectedAttempts() {
        QuotaService service = service(config(plan("free", greedy("burst", 10, 1, Duration.ofHours(1))))
                .withVersion(5), recorder);

        service.reload(config(plan("free", greedy("burst", 20, 1, Duration.ofHours(1)))).withVersion(6));
        assertThatThrownBy(() -> service.reload(config(plan("free", greedy("burst", 5, 1, Duration.ofHours(1))))
                .withVersion(6))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> service.reload(() -> {
            throw new IllegalStateException("bad file");
        })).isInstanceOf(IllegalStateException.class).hasMessage("bad file");

        assertThat(recorder.events).containsExactly("reload true 6", "reload false 6", "reload false 6");
    }

    @Test
    void failedKey_tellsTheListener() {
        QuotaService service = service(config(plan("free", greedy("burst", 10, 1, Duration.ofHours(1)))), recorder);

        service.identify(RequestFacts.of(Credential.apiKey("no-such-key"),
                dev.quota.core.net.ClientAddresses.parse("203.0.113.7")));

        assertThat(recorder.events).containsExactly("failedKey ALLOWED");
    }

    @Test
    void aThrowingListener_isIgnoredAndLaterListenersAreStillTold() {
        QuotaListener broken = new QuotaListener() {
            @Override
            public void onDecision(Customer customer, @Nullable String limits, QuotaDecision decision, Duration took) {
                throw new IllegalStateException("listener bug");
            }
        };
        QuotaService service = service(config(plan("free", greedy("burst", 10, 1, Duration.ofHours(1)))),
                broken, recorder);

        QuotaDecision decision = service.decide(alice, null);

        assertThat(decision.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(recorder.events).containsExactly("decision alice null ALLOWED");
    }
}
