package dev.quota.core;

import static dev.quota.core.Configs.config;
import static dev.quota.core.Configs.greedy;
import static dev.quota.core.Configs.plan;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An operator's view of in-flight limits ({@link QuotaAdmin#inFlight}) and their release
 * ({@link QuotaAdmin#releaseLeases}), beside a bucket reset that leaves leases alone; and the
 * listeners' {@link QuotaListener#onRelease}, once per decision that held leases.
 */
class InFlightStandingTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final Customer alice = Customer.of("alice", "free");
    private final Rule imports = Rule.builder("imports")
            .perCustomer(List.of(greedy("per-minute", 100, 100, Duration.ofMinutes(1))))
            .concurrency(new Concurrency(3, Duration.ofMinutes(2))).build();
    private final List<QuotaDecision> released = new ArrayList<>();

    private QuotaService service() {
        Plan free = plan("free", greedy("burst", 1_000, 1_000, Duration.ofHours(1))).withConcurrency(Concurrency.of(5));
        return QuotaService.builder().store(new SwitchableStore(clock))
                .config(config(List.of(free), List.of(imports), List.of()))
                .listener(new QuotaListener() {
                    @Override
                    public void onRelease(QuotaDecision decision) {
                        released.add(decision);
                    }
                }).clock(clock).build();
    }

    @Test
    void inFlight_showsHeldOfLimit_andTheOldestDeadline_perPlanAndRule() {
        QuotaService service = service();
        assertThat(service.admin().inFlight(alice)).containsExactly(
                new InFlightStanding("free-in-flight", 0, 5, Duration.ofSeconds(60), null),
                new InFlightStanding("imports-in-flight", 0, 3, Duration.ofMinutes(2), null));

        service.decide(alice, "imports");
        clock.advance(Duration.ofSeconds(10));
        service.decide(alice, "imports");
        service.decide(alice, null);

        assertThat(service.admin().inFlight(alice)).containsExactly(
                new InFlightStanding("free-in-flight", 3, 5, Duration.ofSeconds(60),
                        Instant.parse("2026-11-29T10:01:00Z")),
                new InFlightStanding("imports-in-flight", 2, 3, Duration.ofMinutes(2),
                        Instant.parse("2026-11-29T10:02:00Z")));
    }

    @Test
    void resetOfBuckets_leavesLeasesHeld_releaseLeasesFreesThem_andALateGiveBackFreesNoOneElses() {
        QuotaService service = service();
        List<QuotaDecision> running = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            running.add(service.decide(alice, "imports"));
        }
        assertThat(service.decide(alice, "imports").violated().policy()).isEqualTo("imports-in-flight");

        service.admin().reset(alice);
        assertThat(service.decide(alice, "imports").allowed()).as("a bucket reset leaves leases held").isFalse();

        List<InFlightStanding> before = service.admin().releaseLeases(alice);
        assertThat(before).extracting(InFlightStanding::policy, InFlightStanding::held)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("free-in-flight", 3L),
                        org.assertj.core.groups.Tuple.tuple("imports-in-flight", 3L));
        assertThat(service.admin().inFlight(alice)).extracting(InFlightStanding::held).containsExactly(0L, 0L);

        // a lease is known by its deadline: the new ones are taken a second later, as on a clock that runs
        clock.advance(Duration.ofSeconds(1));
        List<QuotaDecision> after = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            QuotaDecision decision = service.decide(alice, "imports");
            assertThat(decision.allowed()).as("import %d after the release", i + 1).isTrue();
            after.add(decision);
        }
        assertThat(service.decide(alice, "imports").allowed()).as("the limit of 3 holds again").isFalse();

        running.forEach(service::release);
        assertThat(service.decide(alice, "imports").allowed())
                .as("the released requests' late give-backs free none of the new leases").isFalse();
        assertThat(service.admin().inFlight(alice).get(1).held()).isEqualTo(3);
        after.forEach(service::release);
        assertThat(service.admin().inFlight(alice).get(1).held()).isZero();
    }

    @Test
    void onRelease_isToldOncePerDecisionThatHeldLeases() {
        QuotaService service = service();
        QuotaDecision running = service.decide(alice, "imports");

        service.release(running);
        service.release(running);

        assertThat(released).containsExactly(running);
    }
}
