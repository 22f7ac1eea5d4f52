package dev.quota.core;

import static dev.quota.core.Configs.config;
import static dev.quota.core.Configs.daily;
import static dev.quota.core.Configs.greedy;
import static dev.quota.core.Configs.plan;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.Test;

class QuotaServiceTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final Customer alice = Customer.of("alice", "free");

    private QuotaService service(QuotaConfig config) {
        return QuotaService.builder().store(InMemoryStore.builder().clock(clock).build()).config(config).clock(clock)
                .build();
    }

    @Test
    void decide_whenBurstExhausted_rejectsWithRetryAfterAndViolatedLimit() {
        QuotaService service = service(config(plan("free", greedy("burst", 20, 10, Duration.ofSeconds(1)))));
        for (int i = 0; i < 20; i++) {
            assertThat(service.decide(alice, null).allowed()).isTrue();
        }

        QuotaDecision rejected = service.decide(alice, null);

        assertThat(rejected.outcome()).isEqualTo(QuotaDecision.Outcome.REJECTED);
        assertThat(rejected.violated().policy()).isEqualTo("free-burst");
        assertThat(rejected.violated().remaining()).isZero();
        assertThat(rejected.retryAfter()).isEqualTo(Duration.ofMillis(100));
        assertThat(rejected.violated().resetAfter()).isEqualTo(Duration.ofSeconds(2));
    }

    /** What broke: a request costing 10 with 2 tokens left was admitted, charged 1. */
    @Test
    void decide_whenThePlanHoldsLessThanTheCost_rejects_andChargesOneToken() {
        Rule export = Rule.builder("export").cost(10).build();
        QuotaService service = service(config(List.of(plan("free", greedy("burst", 12, 12, Duration.ofHours(1)))),
                List.of(export), List.of()));
        assertThat(service.decide(alice, "export").allowed()).isTrue();

        QuotaDecision rejected = service.decide(alice, "export");

        assertThat(rejected.outcome()).isEqualTo(QuotaDecision.Outcome.REJECTED);
        assertThat(rejected.violated().policy()).isEqualTo("free-burst");
        assertThat(rejected.violated().remaining()).as("2 left, 1 charged for the request").isEqualTo(1);
        assertThat(rejected.retryAfter()).as("9 more tokens at 12 an hour").isEqualTo(Duration.ofMinutes(45));
        assertThat(service.decide(alice, null).limits().get(0).remaining()).isZero();
    }

    @Test
    void decide_reportsEveryPlanLimitAfterTheRequest() {
        QuotaService service = service(config(plan("free",
                greedy("burst", 20, 10, Duration.ofSeconds(1)), daily("daily", 1000, "Europe/Berlin"))));

        QuotaDecision decision = service.decide(alice, null);

        assertThat(decision.limits()).extracting(LimitStatus::policy, LimitStatus::remaining)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("free-burst", 19L),
                        org.assertj.core.groups.Tuple.tuple("free-daily", 999L));
        // 10:00 UTC is 11:00 in Berlin: 13 hours to local midnight
        LimitStatus dailyStatus = decision.limits().stream().filter(s -> s.policy().equals("free-daily")).findFirst().orElseThrow();
        assertThat(dailyStatus.resetAfter()).isEqualTo(Duration.ofHours(13));
    }

    @Test
    void decide_withRuleCost_takesCostFromPlanAndOneFromRuleLimits() {
        Rule export = Rule.builder("export").cost(10).perCustomer(List.of(greedy("hourly", 3, 3, Duration.ofHours(1))))
                .build();
        QuotaService service = service(config(List.of(plan("free", greedy("burst", 20, 1, Duration.ofHours(1)))),
                List.of(export), List.of()));

        QuotaDecision decision = service.decide(alice, "export");

        assertThat(decision.limits()).extracting(LimitStatus::policy, LimitStatus::remaining)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("free-burst", 10L),
                        org.assertj.core.groups.Tuple.tuple("export-hourly", 2L));
    }

    @Test
    void decide_whenRuleLimitRejects_stillChargesThePlanButNotTheRule() {
        Rule transfers = Rule.builder("transfers")
                .perCustomer(List.of(greedy("per-minute", 2, 2, Duration.ofMinutes(1)))).build();
        QuotaService service = service(config(List.of(plan("free", greedy("burst", 20, 1, Duration.ofHours(1)))),
                List.of(transfers), List.of()));
        service.decide(alice, "transfers");
        service.decide(alice, "transfers");

        QuotaDecision rejected = service.decide(alice, "transfers");

        assertThat(rejected.outcome()).isEqualTo(QuotaDecision.Outcome.REJECTED);
        assertThat(rejected.violated().policy()).isEqualTo("transfers-per-minute");
        assertThat(rejected.retryAfter()).isEqualTo(Duration.ofSeconds(30));
        // the request was made: it costs the plan a token, so a flood of refused requests is limited too
        assertThat(rejected.limits().get(0).policy()).isEqualTo("free-burst");
        assertThat(rejected.limits().get(0).remaining()).isEqualTo(17);
        assertThat(rejected.limits().get(1).remaining()).isZero();
        assertThat(rejected.receipt().refundable()).isFalse();
        assertThat(service.decide(alice, null).limits().get(0).remaining()).isEqualTo(16);
    }

    @Test
    void decide_sharedRuleLimit_isSharedByAllCustomers() {
        Rule search = Rule.builder("search").shared(List.of(greedy("all", 3, 3, Duration.ofHours(1)))).build();
        QuotaService service = service(config(List.of(plan("free", greedy("burst", 20, 1, Duration.ofHours(1)))),
                List.of(search), List.of()));

        assertThat(service.decide(Customer.of("a", "free"), "search").allowed()).isTrue();
        assertThat(service.decide(Customer.of("b", "free"), "search").allowed()).isTrue();
        assertThat(service.decide(Customer.of("c", "free"), "search").allowed()).isTrue();
        QuotaDecision fourth = service.decide(Customer.of("d", "free"), "search");

        assertThat(fourth.allowed()).isFalse();
        assertThat(fourth.violated().policy()).isEqualTo("search-all");
    }

    @Test
    void decide_withMultiplier_scalesCapacity() {
        QuotaService service = service(config(plan("pro", greedy("burst", 100, 1, Duration.ofHours(1)))));

        QuotaDecision decision = service.decide(Customer.of("SAV2001", "pro", 2.0), null);

        assertThat(decision.limits().get(0).limit().capacity()).isEqualTo(200);
        assertThat(decision.limits().get(0).remaining()).isEqualTo(199);
    }

    @Test
    void calendarDay_resetsAtLocalMidnight_onDaylightSavingDay() {
        // 2026-03-29 in Berlin has 23 hours: midnight is 23:00Z on the 28th, the next one 22:00Z on the 29th
        clock.set(Instant.parse("2026-03-29T21:30:00Z"));
        QuotaService service = service(config(plan("free", daily("daily", 2, "Europe/Berlin"))));
        service.decide(alice, null);
        service.decide(alice, null);

        QuotaDecision rejected = service.decide(alice, null);
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.retryAfter()).isEqualTo(Duration.ofMinutes(30));

        clock.set(Instant.parse("2026-03-29T22:00:00Z"));
        assertThat(service.decide(alice, null).allowed()).isTrue();
    }

    @Test
    void calendarDay_onAutumnChange_lasts25Hours() {
        // 2026-10-25 in Berlin: local midnight at 22:00Z on the 24th, next at 23:00Z on the 25th
        clock.set(Instant.parse("2026-10-24T22:00:00Z"));
        QuotaService service = service(config(plan("free", daily("daily", 1, "Europe/Berlin"))));
        service.decide(alice, null);

        clock.set(Instant.parse("2026-10-25T22:59:59Z"));
        QuotaDecision stillToday = service.decide(alice, null);
        assertThat(stillToday.allowed()).isFalse();
        assertThat(stillToday.retryAfter()).isEqualTo(Duration.ofSeconds(1));

        clock.set(Instant.parse("2026-10-25T23:00:00Z"));
        assertThat(service.decide(alice, null).allowed()).isTrue();
    }

    @Test
    void calendarMonth_resetsOnTheFirst_afterAShortMonth() {
        clock.set(Instant.parse("2027-02-28T23:59:00Z"));
        QuotaService service = service(config(plan("free", Configs.calendar("monthly", 1, ChronoUnit.MONTHS, "UTC"))));
        service.decide(alice, null);
        assertThat(service.decide(alice, null).retryAfter()).isEqualTo(Duration.ofMinutes(1));

        clock.set(Instant.parse("2027-03-01T00:00:00Z"));

        assertThat(service.decide(alice, null).allowed()).isTrue();
    }

    @Test
    void calendarHour_resetsOnTheHour() {
        clock.set(Instant.parse("2026-11-29T10:59:30Z"));
        QuotaService service = service(config(plan("free", Configs.calendar("hourly", 1, ChronoUnit.HOURS, "UTC"))));
        service.decide(alice, null);
        assertThat(service.decide(alice, null).retryAfter()).isEqualTo(Duration.ofSeconds(30));

        clock.advance(Duration.ofSeconds(30));

        assertThat(service.decide(alice, null).allowed()).isTrue();
    }

    @Test
    void consumeAmount_limitsPerCurrencyAndReportsAmountLimit() {
        AmountLimits amounts = AmountLimits.of("transfer-amount", List.of(daily("daily", 100_000, "Europe/Berlin")),
                FailurePolicy.CLOSED);
        QuotaService service = service(config(List.of(plan("free", greedy("burst", 20, 1, Duration.ofHours(1)))),
                List.of(), List.of(amounts)));

        assertThat(service.consumeAmount(alice, new Amount("transfer-amount", "EUR", 90_000)).allowed()).isTrue();
        QuotaDecision tooMuch = service.consumeAmount(alice, new Amount("transfer-amount", "EUR", 20_000));
        QuotaDecision otherCurrency = service.consumeAmount(alice, new Amount("transfer-amount", "USD", 20_000));

        assertThat(tooMuch.allowed()).isFalse();
        assertThat(tooMuch.violated().policy()).isEqualTo("transfer-amount-daily");
        assertThat(tooMuch.violated().remaining()).isEqualTo(10_000);
        assertThat(tooMuch.violated().role()).isEqualTo(LimitStatus.Role.AMOUNT);
        assertThat(otherCurrency.allowed()).isTrue();
        assertThat(service.admin().amountStanding(alice, "transfer-amount", "EUR"))
                .extracting(LimitStatus::policy, LimitStatus::remaining)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("transfer-amount-daily", 10_000L));
        assertThat(service.admin().amountStanding(alice, "transfer-amount", "EUR").get(0).remaining()).isEqualTo(10_000);
    }

    @Test
    void consumeAmount_rejectsBadArguments() {
        QuotaService service = service(config(plan("free", greedy("burst", 20, 1, Duration.ofHours(1)))));

        assertThatThrownBy(() -> service.consumeAmount(alice, new Amount("nope", "EUR", 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown amount limits \"nope\"");
    }

    @Test
    void reload_withLargerLimit_keepsUsage() {
        QuotaService service = service(config(plan("free", greedy("burst", 100, 1, Duration.ofHours(1)))));
        for (int i = 0; i < 60; i++) {
            service.decide(alice, null);
        }

        service.reload(config(plan("free", greedy("burst", 200, 1, Duration.ofHours(1)))));

        assertThat(service.decide(alice, null).limits().get(0).remaining()).isEqualTo(139);
    }

    @Test
    void reload_withSmallerLimit_keepsRemainingTokensCappedAtNewCapacity() {
        QuotaService service = service(config(plan("free", greedy("burst", 100, 1, Duration.ofHours(1)))));
        for (int i = 0; i < 60; i++) {
            service.decide(alice, null);
        }

        service.reload(config(plan("free", greedy("burst", 50, 1, Duration.ofHours(1)))));

        // 40 tokens were left; they are kept (at most the new capacity of 50)
        QuotaDecision decision = service.decide(alice, null);
        assertThat(decision.limits().get(0).remaining()).isEqualTo(39);
    }

    @Test
    void reload_withExplicitLowerVersion_isRefused() {
        QuotaService service = service(config(plan("free", greedy("burst", 100, 1, Duration.ofHours(1)))).withVersion(7));

        assertThatThrownBy(() -> service.reload(config(plan("free", greedy("burst", 5, 1, Duration.ofHours(1)))).withVersion(7)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must increase");
        assertThat(service.config().version()).isEqualTo(7);
    }

    @Test
    void reload_withoutVersion_alwaysIncreasesVersion() {
        QuotaService service = service(config(plan("free", greedy("burst", 100, 1, Duration.ofHours(1)))));
        long first = service.config().version();

        long second = service.reload(config(plan("free", greedy("burst", 50, 1, Duration.ofHours(1))))).version();
        long third = service.reload(config(plan("free", greedy("burst", 60, 1, Duration.ofHours(1))))).version();

        assertThat(second).isGreaterThan(first);
        assertThat(third).isGreaterThan(second);
    }

    @Test
    void reset_refillsTheCustomer() {
        QuotaService service = service(config(plan("free", greedy("burst", 2, 1, Duration.ofHours(1)))));
        service.decide(alice, null);
        service.decide(alice, null);

        service.admin().reset(alice);

        assertThat(service.decide(alice, null).limits().get(0).remaining()).isEqualTo(1);
    }

    @Test
    void standing_readsWithoutTaking() {
        QuotaService service = service(config(plan("free", greedy("burst", 5, 1, Duration.ofHours(1)))));
        service.decide(alice, null);

        assertThat(service.admin().standing(alice)).extracting(LimitStatus::remaining).containsExactly(4L);
        assertThat(service.admin().standing(alice)).extracting(LimitStatus::remaining).containsExactly(4L);
    }

    @Test
    void customerForApiKey_matchesBySha256() {
        QuotaConfig base = config(plan("free", greedy("burst", 5, 1, Duration.ofHours(1))));
        QuotaConfig.Builder builder = QuotaConfig.builder().customer(Customer.of("ACME", "free"))
                .apiKey(dev.quota.core.config.ApiKeys.sha256Hex("secret-key"), "ACME");
        base.plans().values().forEach(builder::plan);
        QuotaConfig withKey = builder.build();
        QuotaService service = service(withKey);

        assertThat(service.customerForApiKey("secret-key")).isEqualTo(Customer.of("ACME", "free"));
        assertThat(service.customerForApiKey("other")).isNull();
    }
}
