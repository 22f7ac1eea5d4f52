package dev.quota.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.PerBucketStore;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.spi.Take;
import dev.quota.core.store.ForwardingStore;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What one decision takes from a plan bucket (10 requests an hour, 1 a request), a rule bucket (5 an
 * hour, 1 a request) and an amount bucket (1,000 a day, 300 a request), by mode and by what each
 * bucket holds: every row in one store call, on a store that changes all buckets at once and on
 * one that changes them one by one; the decision's receipt says what the plan gave.
 */
class DecisionChargeTest {

    private static final Limit PLAN = new Limit("burst", 10, Refill.greedy(10, Duration.ofHours(1)));
    private static final Limit RULE = new Limit("per-hour", 5, Refill.greedy(5, Duration.ofHours(1)));
    private static final Limit AMOUNT = new Limit("daily", 1000, Refill.greedy(1000, Duration.ofDays(1)));

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            # row                                    | plan | rule | amount | plan, rule, amount held | outcome         | plan, rule, amount taken
            admitted                                 | E    | E    | E      | 10, 5, 1000             | ALLOWED         | 1, 1, 300
            rule refuses: the plan pays the request  | E    | E    | E      | 10, 0, 1000             | REJECTED        | 1, 0, 0
            amount refuses: the plan pays            | E    | E    | E      | 10, 5, 200              | REJECTED        | 1, 0, 0
            plan refuses: nothing is taken           | E    | E    | E      | 0, 5, 1000              | REJECTED        | 0, 0, 0
            plan and rule refuse                     | E    | E    | E      | 0, 0, 1000              | REJECTED        | 0, 0, 0
            shadow rule lacks: served                | E    | S    | E      | 10, 0, 1000             | SHADOW_REJECTED | 1, 0, 300
            shadow rule has: counted                 | E    | S    | E      | 10, 5, 1000             | ALLOWED         | 1, 1, 300
            shadow rule has, amount refuses          | E    | S    | E      | 10, 5, 200              | REJECTED        | 1, 0, 0
            shadow rule lacks, amount refuses        | E    | S    | E      | 10, 0, 200              | REJECTED        | 1, 0, 0
            shadow rule has, plan refuses            | E    | S    | E      | 0, 5, 1000              | REJECTED        | 0, 0, 0
            shadow plan lacks: served                | S    | E    | E      | 0, 5, 1000              | SHADOW_REJECTED | 0, 1, 300
            shadow plan has, rule refuses            | S    | E    | E      | 10, 0, 1000             | REJECTED        | 0, 0, 0
            shadow rule and amount, amount lacks     | E    | S    | S      | 10, 5, 200              | SHADOW_REJECTED | 1, 0, 0
            all in shadow, all have                  | S    | S    | S      | 10, 5, 1000             | ALLOWED         | 1, 1, 300
            all in shadow, plan lacks                | S    | S    | S      | 0, 5, 1000              | SHADOW_REJECTED | 0, 0, 0
            """)
    void decision_takesWhatTheTableSays_inOneStoreCall(String row, String planMode, String ruleMode,
                                                       String amountMode, String held, QuotaDecision.Outcome outcome,
                                                       String taken) {
        long[] holds = figures(held);
        long[] takes = figures(taken);
        for (Named<QuotaStore> named : List.of(Named.<QuotaStore>of("in-JVM", InMemoryStore.builder().clock(clock).build()),
                Named.<QuotaStore>of("bucket by bucket", new OneByOne(InMemoryStore.builder().clock(clock).build())))) {
            QuotaStore store = named.getPayload();
            List<Draw> draws = List.of(
                    draw("plan", PLAN, 1, LimitStatus.Role.PLAN, planMode),
                    draw("rule", RULE, 1, LimitStatus.Role.RULE, ruleMode),
                    draw("amount", AMOUNT, 300, LimitStatus.Role.AMOUNT, amountMode));
            for (int i = 0; i < draws.size(); i++) {
                long drain = draws.get(i).declared().get(0).capacity() - holds[i];
                if (drain > 0) {
                    store.tryConsume(draws.get(i).key(), draws.get(i).spec(), drain);
                }
            }
            AtomicInteger consumes = new AtomicInteger();
            QuotaStore counted = new ForwardingStore(store) {
                @Override
                protected void before(String operation) {
                    if (operation.equals("consume")) {
                        consumes.incrementAndGet();
                    }
                }
            };
            DecisionRunner runner = new DecisionRunner(new RunnerWiring(counted,
                    InMemoryStore.builder().clock(clock).build(), clock, new QuotaListener() { })
                    .liveInstances(() -> 1)
                    .instanceRank(() -> 0)
                    .unavailableRetryAfter(Duration.ofSeconds(1)));

            QuotaDecision decision = runner.run(share -> draws);

            assertThat(decision.outcome()).as(named.getName()).isEqualTo(outcome);
            assertThat(consumes).as(named.getName() + ": store calls").hasValue(1);
            for (int i = 0; i < draws.size(); i++) {
                Draw draw = draws.get(i);
                assertThat(holds[i] - store.peek(draw.key(), draw.spec()).remaining()[0])
                        .as(named.getName() + ": taken from " + draw.role()).isEqualTo(takes[i]);
            }
            assertThat(decision.receipt().planTokens()).as(named.getName() + ": plan charge on the receipt")
                    .isEqualTo(takes[0]);
        }
    }

    private static Draw draw(String name, Limit limit, long tokens, LimitStatus.Role role, String mode) {
        return new Draw(new BucketKey("charge-test:" + name), BucketSpec.of(List.of(limit), 1), tokens,
                new Draw.Shape(List.of(limit), List.of(name + "-" + limit.name()), null, role, FailurePolicy.CLOSED,
                        mode.equals("S") ? Mode.SHADOW : Mode.ENFORCE, false));
    }

    private static long[] figures(String csv) {
        String[] parts = csv.split(",", -1);
        long[] out = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            out[i] = Long.parseLong(parts[i].trim());
        }
        return out;
    }

    /** A store that changes one bucket at a time, over an in-JVM one: the split path every such store runs. */
    private static final class OneByOne extends PerBucketStore {
        private final QuotaStore buckets;

        OneByOne(QuotaStore buckets) {
            this.buckets = buckets;
        }

        @Override
        protected ConsumeResult consumeOne(Take take) {
            return buckets.tryConsume(List.of(take)).get(0);
        }

        @Override
        public void addTokens(BucketKey key, BucketSpec spec, long tokens) {
            buckets.addTokens(key, spec, tokens);
        }

        @Override
        public void releaseLease(BucketKey key, BucketSpec spec, long lease) {
            buckets.releaseLease(key, spec, lease);
        }

        @Override
        public ConsumeResult peek(BucketKey key, BucketSpec spec) {
            return buckets.peek(key, spec);
        }

        @Override
        public void reset(BucketKey key) {
            buckets.reset(key);
        }

        @Override
        public String describe() {
            return "bucket by bucket";
        }

        @Override
        public void close() {
            buckets.close();
        }
    }
}
