package dev.quota.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Limit;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.core.Rule;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketMath;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.Take;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.cache.Cache;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * All of a customer's buckets are one grid entry: a decision over them is one read and one write in
 * compare-and-swap mode, one invoke with entry processors, counted on a real grid, whatever the
 * number of the customer's buckets.
 */
class OneEntryPerCustomerTest {

    @RegisterExtension
    static HazelcastGrid grid = HazelcastGrid.shared();

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");

    /** A plan of 10 a minute and 100 a calendar day; rule export: 3 an hour per customer, and 5 an hour shared. */
    private static QuotaConfig config() {
        Plan plan = Plan.of("free", List.of(new Limit("burst", 10, Refill.greedy(10, Duration.ofMinutes(1))),
                new Limit("daily", 100, Refill.calendar(ChronoUnit.DAYS, ZoneOffset.UTC))), FailurePolicy.CLOSED);
        Rule export = Rule.builder("export")
                .perCustomer(List.of(new Limit("export", 3, Refill.greedy(3, Duration.ofHours(1))))).build();
        Rule report = Rule.builder("report")
                .shared(List.of(new Limit("reports", 5, Refill.greedy(5, Duration.ofHours(1))))).build();
        return QuotaConfig.builder().version(1).plan(plan).rule(export).rule(report).build();
    }

    @Test
    void aDecisionOverTheCustomersPlanCalendarDayAndRule_isOneReadAndOneWrite_ofOneEntry() {
        Cache<String, byte[]> cache = grid.cache(0, "one-entry-" + UUID.randomUUID());
        CountingCache counting = CountingCache.of(cache);
        JCacheStore store = JCacheStore.builder(counting.cache()).clock(clock).build();
        try (QuotaService service = QuotaService.builder().store(store).config(config()).clock(clock).build()) {
            Customer alice = Customer.of("alice", "free");
            counting.reset();

            List<QuotaDecision.Outcome> outcomes = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                outcomes.add(service.decide(alice, "export").outcome());
            }

            assertThat(outcomes).containsExactly(QuotaDecision.Outcome.ALLOWED, QuotaDecision.Outcome.ALLOWED,
                    QuotaDecision.Outcome.ALLOWED, QuotaDecision.Outcome.REJECTED);
            // the fourth is refused by the rule and still charges the plan's refusal token: a write
            assertThat(counting.calls()).containsExactlyInAnyOrderEntriesOf(
                    Map.of("get", 4, "putIfAbsent", 1, "replace", 3));
            List<String> keys = new ArrayList<>();
            cache.forEach(entry -> keys.add(entry.getKey()));
            assertThat(keys).singleElement().asString().matches("quota:\\{c\\.[A-Za-z0-9_-]{22}}");
        }
    }

    @Test
    void withEntryProcessors_aDecisionOverTheCustomersPlanCalendarDayAndRule_isOneInvoke() {
        CountingCache counting = CountingCache.of(JCacheStore.cache(grid.cacheManager(1),
                "one-invoke-" + UUID.randomUUID(), Duration.ofDays(2)));
        JCacheStore store = JCacheStore.builder(counting.cache()).update(JCacheStore.Update.ENTRY_PROCESSOR).clock(clock)
                .build();
        try (QuotaService service = QuotaService.builder().store(store).config(config()).clock(clock).build()) {
            Customer carol = Customer.of("carol", "free");
            counting.reset();

            List<QuotaDecision.Outcome> outcomes = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                outcomes.add(service.decide(carol, "export").outcome());
            }

            assertThat(outcomes).containsExactly(QuotaDecision.Outcome.ALLOWED, QuotaDecision.Outcome.ALLOWED,
                    QuotaDecision.Outcome.ALLOWED, QuotaDecision.Outcome.REJECTED);
            assertThat(counting.calls()).containsExactlyInAnyOrderEntriesOf(Map.of("invoke", 4));
            assertThat(service.admin().standing(carol)).extracting(dev.quota.core.LimitStatus::remaining)
                    .contains(6L, 96L, 0L);
        }
    }

    @Test
    void aDecisionWithALimitEveryCustomerShares_isOneReadAndOneWritePerEntry() {
        CountingCache counting = CountingCache.of(grid.cache(1, "shared-entry-" + UUID.randomUUID()));
        JCacheStore store = JCacheStore.builder(counting.cache()).clock(clock).build();
        try (QuotaService service = QuotaService.builder().store(store).config(config()).clock(clock).build()) {
            counting.reset();

            assertThat(service.decide(Customer.of("bob", "free"), "report").outcome())
                    .isEqualTo(QuotaDecision.Outcome.ALLOWED);

            // the customer's plan buckets, then the shared limit's own entry
            assertThat(counting.calls()).containsExactlyInAnyOrderEntriesOf(Map.of("get", 2, "putIfAbsent", 2));
        }
    }

    @Test
    void bucketsFullAgain_leaveTheEntry_andAnEntryWithNoneLeftIsRemoved() {
        Cache<String, byte[]> cache = grid.cache(0, "full-again-" + UUID.randomUUID());
        JCacheStore store = JCacheStore.builder(cache).clock(clock).build();
        String tag = "quota-test:{" + UUID.randomUUID() + "}";
        BucketKey quick = new BucketKey(tag + ":quick");
        BucketKey slow = new BucketKey(tag + ":slow");
        BucketSpec perMinute = BucketSpec.of(List.of(new Limit("m", 10, Refill.greedy(10, Duration.ofMinutes(1)))), 1);
        BucketSpec perHour = BucketSpec.of(List.of(new Limit("h", 10, Refill.greedy(10, Duration.ofHours(1)))), 1);
        store.tryConsume(List.of(Take.of(quick, perMinute, 1), Take.of(slow, perHour, 1)));

        clock.advance(Duration.ofSeconds(6)); // quick is full again; slow is still short of the token taken
        store.tryConsume(slow, perHour, 1);

        BucketEntry entry = BucketEntry.decode(cache.get(tag));
        assertThat(entry.get(":quick")).as("full again: left out").isNull();
        assertThat(BucketMath.peek(entry.get(":slow"), perHour, dev.quota.core.internal.Bandwidths.timeMeter(clock).currentTimeNanos()).remaining()).containsExactly(8);

        store.addTokens(slow, perHour, 2);

        assertThat(cache.containsKey(tag)).as("no bucket left in use").isFalse();
        assertThat(store.peek(slow, perHour).remaining()).containsExactly(10);
    }
}
