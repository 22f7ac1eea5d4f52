package dev.quota.core;

import static dev.quota.core.Configs.greedy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.QuotaDecision.Outcome;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The "store unavailable" warnings during an outage: one a second by the service's clock, with a count. */
class StoreFailureWarningTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final SwitchableStore store = new SwitchableStore(clock);
    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private final QuotaService service = QuotaService.builder().store(store).clock(clock)
            .config(Configs.config(Plan.of("free", List.of(greedy("burst", 100, 100, Duration.ofSeconds(1))),
                    FailurePolicy.CLOSED)))
            .storeFailureWarnings(warnings::add).build();
    private final Customer alice = Customer.of("alice", "free");

    private void decideTimes(int n) {
        for (int i = 0; i < n; i++) {
            assertThat(service.decide(alice, null).outcome()).isEqualTo(Outcome.UNAVAILABLE);
        }
    }

    @Test
    void outage_firstFailureWarnsAtOnce_thenOneWarningASecondWithTheCountOfTheOthers() {
        store.failing = true;

        decideTimes(1);
        assertThat(warnings).hasSize(1);
        assertThat(warnings.get(0)).startsWith("quota store unavailable (store down (test)); applying failure policy")
                .endsWith("(0 more since the last warning)");

        decideTimes(41);
        clock.advance(Duration.ofMillis(999));
        decideTimes(1);
        assertThat(warnings).as("42 failures within the second after the first warning").hasSize(1);

        clock.advance(Duration.ofMillis(1));
        decideTimes(1);
        assertThat(warnings).hasSize(2);
        assertThat(warnings.get(1)).endsWith("(42 more since the last warning)");
    }

    @Test
    void failuresAfterAQuietSecond_warnAtOnceWithNoneLeftOut() {
        store.failing = true;
        decideTimes(1);

        clock.advance(Duration.ofSeconds(30));
        decideTimes(1);

        assertThat(warnings).hasSize(2).allSatisfy(line -> assertThat(line).endsWith("(0 more since the last warning)"));
    }

    @Test
    void frozenClock_keepsCountingWithoutWarningAgain() {
        store.failing = true;

        decideTimes(1_000);

        assertThat(warnings).hasSize(1);
        clock.advance(Duration.ofSeconds(1));
        decideTimes(1);
        assertThat(warnings).last().asString().endsWith("(999 more since the last warning)");
    }
}
