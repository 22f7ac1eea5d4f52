package dev.quota.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.internal.CalendarWindow;
import dev.quota.core.internal.Hashes;
import dev.quota.testkit.MutableClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.Test;

class BucketLayoutTest {

    private final Plan plan = Plan.of("free", List.of(new Limit("burst", 10, Refill.greedy(10, Duration.ofSeconds(1)))),
            FailurePolicy.OPEN);
    private final QuotaConfig config = QuotaConfig.builder().plan(plan).build();
    private final BucketLayout layout = new BucketLayout("quota", Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));

    private String planKey(Customer customer) {
        return layout.plan(config, customer, plan, null, LocalShare.WHOLE).get(0).key().value();
    }

    @Test
    void planKey_isTheHashOfKindAndId_pinned() {
        assertThat(planKey(Customer.of("alice", "free"))).isEqualTo("quota:{c.KZvfLzSRJF8u9Nn_K2-VGA}:p");
    }

    @Test
    void customerKeys_stayRight_whenMoreCustomersThanTheKeyPartTableHoldsShareItsSlots() {
        // 20,000 customers in a table of 4,096 slots: most slots change hands, twice over
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < 20_000; i++) {
                Customer customer = Customer.of("c" + i, "free");
                assertThat(planKey(customer)).isEqualTo("quota:{c." + Hashes.keyPart("ACCOUNT", "c" + i) + "}:p");
            }
        }
    }

    /**
     * A customer's plan key is kept from its second decision in its slot on, and customers seen
     * once each (20,000 of them, about five a slot) do not push it out: their keys are made, not kept.
     */
    @Test
    void planKey_isKeptFromTheSecondDecision_andCustomersSeenOnceDoNotPushItOut() {
        Customer alice = Customer.of("alice", "free");
        Draw first = layout.plan(config, alice, plan, null, LocalShare.WHOLE).get(0);
        Draw second = layout.plan(config, alice, plan, null, LocalShare.WHOLE).get(0);
        Draw third = layout.plan(config, alice, plan, null, LocalShare.WHOLE).get(0);
        assertThat(second.key()).isEqualTo(first.key()).isNotSameAs(first.key());
        assertThat(third.key()).isSameAs(second.key());
        for (int i = 0; i < 20_000; i++) {
            Customer once = Customer.of("once" + i, "free");
            assertThat(planKey(once)).isEqualTo("quota:{c." + Hashes.keyPart("ACCOUNT", "once" + i) + "}:p");
        }
        assertThat(layout.plan(config, alice, plan, null, LocalShare.WHOLE).get(0).key()).isSameAs(second.key());
    }

    /**
     * A draw's shape (limits, policies, role, mode) is kept per limits and made again only when
     * the role or the mode differs: two customers' decisions on the same plan share it.
     */
    @Test
    void drawShape_isSharedByDecisionsOnTheSameLimits_andMadeAgainForAnotherMode() {
        Draw alice = layout.plan(config, Customer.of("alice", "free"), plan, null, LocalShare.WHOLE).get(0);
        Draw bob = layout.plan(config, Customer.of("bob", "free"), plan, null, LocalShare.WHOLE).get(0);
        assertThat(bob.shape()).isSameAs(alice.shape());
        assertThat(bob.key()).isNotEqualTo(alice.key());
        assertThat(alice.declared()).isEqualTo(plan.limits());
        assertThat(alice.policies()).containsExactly("free-burst");

        QuotaConfig shadow = QuotaConfig.builder().plan(plan).mode(Mode.SHADOW).build();
        Draw shadowed = layout.plan(shadow, Customer.of("alice", "free"), plan, null, LocalShare.WHOLE).get(0);
        assertThat(shadowed.mode()).isEqualTo(Mode.SHADOW);
        assertThat(shadowed.take().shadow()).isTrue();
        assertThat(alice.mode()).isEqualTo(Mode.ENFORCE);
        assertThat(alice.take().shadow()).isFalse();
    }

    @Test
    void calendarWindow_isTheDayContainingEachDecision_acrossMidnightAndADaylightSavingDay() {
        ZoneId berlin = ZoneId.of("Europe/Berlin");
        Plan daily = Plan.of("daily", List.of(new Limit("day", 100, Refill.calendar(ChronoUnit.DAYS, berlin))),
                FailurePolicy.OPEN);
        QuotaConfig dailyConfig = QuotaConfig.builder().plan(daily).build();
        // 2026-03-29 is 23 hours long in Berlin: from 2026-03-28T23:00Z to 2026-03-29T22:00Z
        MutableClock clock = MutableClock.at("2026-03-28T22:59:59Z");
        BucketLayout berlinLayout = new BucketLayout("quota", clock);
        Customer alice = Customer.of("alice", "daily");

        Draw before = berlinLayout.plan(dailyConfig, alice, daily, null, LocalShare.WHOLE).get(0);
        clock.advance(Duration.ofSeconds(1));
        Draw first = berlinLayout.plan(dailyConfig, alice, daily, null, LocalShare.WHOLE).get(0);
        clock.advance(Duration.ofHours(22).plusMinutes(59).plusSeconds(59));
        Draw last = berlinLayout.plan(dailyConfig, alice, daily, null, LocalShare.WHOLE).get(0);
        clock.advance(Duration.ofSeconds(1));
        Draw next = berlinLayout.plan(dailyConfig, alice, daily, null, LocalShare.WHOLE).get(0);

        long dayStart = Instant.parse("2026-03-28T23:00:00Z").getEpochSecond();
        long nextStart = Instant.parse("2026-03-29T22:00:00Z").getEpochSecond();
        assertThat(before.key().value()).endsWith(":day:" + (dayStart - 86_400));
        assertThat(first.key().value()).isEqualTo("quota:{c.KZvfLzSRJF8u9Nn_K2-VGA}:p:day:" + dayStart);
        assertThat(last.key()).isEqualTo(first.key());
        assertThat(last.spec()).isSameAs(first.spec());
        assertThat(first.window()).isEqualTo(new CalendarWindow(Instant.ofEpochSecond(dayStart),
                Instant.ofEpochSecond(nextStart)));
        assertThat(first.spec().limits().get(0).refill()).isEqualTo(Refill.interval(100, Duration.ofHours(23)));
        assertThat(next.key().value()).endsWith(":day:" + nextStart);
        assertThat(next.spec().limits().get(0).refill()).isEqualTo(Refill.interval(100, Duration.ofHours(24)));
        // a decision whose clock reads earlier than the window last used gets its own day again
        clock.set(Instant.parse("2026-03-29T12:00:00Z"));
        assertThat(berlinLayout.plan(dailyConfig, alice, daily, null, LocalShare.WHOLE).get(0).key())
                .isEqualTo(first.key());
    }

    @Test
    void keyPart_dependsOnKindAndId_notOnPlanOrMultiplier() {
        Customer alice = Customer.of("alice", "free");
        String key = planKey(alice);
        assertThat(planKey(Customer.of("alice", "free", 3.0))).isEqualTo(key);
        assertThat(planKey(alice.withPlan("free"))).isEqualTo(key);
        assertThat(planKey(Customer.builder("alice", "free").kind(Customer.Kind.PRINCIPAL).build())).isNotEqualTo(key)
                .isEqualTo("quota:{c." + Hashes.keyPart("PRINCIPAL\u0000alice") + "}:p");
    }
}
