package dev.quota.core.internal.top;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.Customer;
import dev.quota.core.TopCustomers;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class HeavyHittersTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final HeavyHitters sketch = new HeavyHitters(clock, Duration.ofMinutes(5), Duration.ofMinutes(1), 3);

    private static Customer c(String id) {
        return Customer.of(id, "free");
    }

    @Test
    void top_withFreeCounters_countsExactlyAndRanksHighestFirst() {
        sketch.add(c("a"), 1);
        sketch.add(c("b"), 5);
        sketch.add(c("a"), 1);

        assertThat(sketch.top(10)).containsExactly(
                new TopCustomers.Entry("b", Customer.Kind.ACCOUNT, 5, 0),
                new TopCustomers.Entry("a", Customer.Kind.ACCOUNT, 2, 0));
        assertThat(sketch.top(1)).extracting(TopCustomers.Entry::customer).containsExactly("b");
    }

    @Test
    void add_whenCountersAreFull_evictsTheSmallestAndInheritsItsCountAsOvercount() {
        sketch.add(c("a"), 10);
        sketch.add(c("b"), 7);
        sketch.add(c("c"), 2);
        sketch.add(c("d"), 1); // takes c's counter: 2 + 1, of which 2 may be c's

        assertThat(sketch.top(10)).containsExactly(
                new TopCustomers.Entry("a", Customer.Kind.ACCOUNT, 10, 0),
                new TopCustomers.Entry("b", Customer.Kind.ACCOUNT, 7, 0),
                new TopCustomers.Entry("d", Customer.Kind.ACCOUNT, 3, 2));
        // c was evicted: it may have had up to the smallest count held, 3, and certainly had none for sure
        assertThat(sketch.of(c("c"))).isEqualTo(new TopCustomers.Entry("c", Customer.Kind.ACCOUNT, 3, 3));
        assertThat(sketch.of(c("d")).atLeast()).isEqualTo(1);
    }

    @Test
    void heavyHitter_amongAFloodOfOneOffCallers_staysFirstWithItsTrueCountWithinTheBounds() {
        // 1,000 one-off addresses interleaved with 600 calls of one customer: 3/8 of the weight, more
        // than 1 in 3 counters, so Space-Saving keeps it however the others evict each other
        for (int i = 0; i < 1_000; i++) {
            sketch.add(Customer.builder("ip:203.0.113." + i, "anonymous").kind(Customer.Kind.ADDRESS).build(), 1);
            if (i % 10 < 6) {
                sketch.add(c("hot"), 1);
            }
        }

        TopCustomers.Entry first = sketch.top(1).get(0);
        assertThat(first.customer()).isEqualTo("hot");
        assertThat(first.atLeast()).isLessThanOrEqualTo(600);
        assertThat(first.count()).isGreaterThanOrEqualTo(600);
    }

    @Test
    void everyCount_boundsTheTrueCount_fromAboveAndWithinItsOvercount_overARandomSkewedStream() {
        HeavyHitters ten = new HeavyHitters(clock, Duration.ofMinutes(5), Duration.ofMinutes(1), 10);
        java.util.Random random = new java.util.Random(42);
        java.util.Map<String, Long> truth = new java.util.HashMap<>();
        for (int i = 0; i < 20_000; i++) {
            // skewed: customer n with weight about 1/n, 200 customers, weights 1 to 3
            String id = "c" + (int) Math.floor(Math.pow(200, random.nextDouble()));
            long weight = 1L + random.nextInt(3);
            ten.add(c(id), weight);
            truth.merge(id, weight, Long::sum);
            if (i % 4_000 == 3_999) {
                clock.advance(Duration.ofMinutes(1)); // five slots, all in the window
            }
        }

        for (var e : truth.entrySet()) {
            TopCustomers.Entry estimate = ten.of(c(e.getKey()));
            assertThat(estimate.count()).as(e.getKey()).isGreaterThanOrEqualTo(e.getValue());
            assertThat(estimate.atLeast()).as(e.getKey()).isLessThanOrEqualTo(e.getValue());
        }
        // the heaviest customer, c1 (about 13% of the weight, more than 1 in 10), is ranked first
        assertThat(ten.top(1).get(0).customer()).isEqualTo("c1");
    }

    @Test
    void kinds_areCountedApart() {
        sketch.add(Customer.of("ip:203.0.113.7", "free"), 1);
        sketch.add(Customer.builder("ip:203.0.113.7", "anonymous").kind(Customer.Kind.ADDRESS).build(), 1);

        assertThat(sketch.top(10)).extracting(TopCustomers.Entry::kind)
                .containsExactlyInAnyOrder(Customer.Kind.ACCOUNT, Customer.Kind.ADDRESS);
    }

    @Test
    void window_sumsTheCurrentMinuteAndTheFiveBefore_thenForgetsTheOldest() {
        sketch.add(c("a"), 4);                       // 10:00
        clock.advance(Duration.ofMinutes(5));        // 10:05, the window is 10:00 to now
        sketch.add(c("a"), 1);
        assertThat(sketch.of(c("a")).count()).isEqualTo(5);
        assertThat(sketch.since()).isEqualTo(Instant.parse("2026-11-29T10:00:00Z"));

        clock.advance(Duration.ofMinutes(1));        // 10:06: 10:00 has left the window
        assertThat(sketch.of(c("a")).count()).isEqualTo(1);
        assertThat(sketch.since()).isEqualTo(Instant.parse("2026-11-29T10:01:00Z"));

        clock.advance(Duration.ofMinutes(6));        // 10:12: nothing left, and the ring slot of 10:06 is reused
        sketch.add(c("b"), 2);
        assertThat(sketch.top(10)).containsExactly(new TopCustomers.Entry("b", Customer.Kind.ACCOUNT, 2, 0));
    }

    @Test
    void addFromManyThreads_loosesNoCount() throws Exception {
        HeavyHitters wide = new HeavyHitters(clock, Duration.ofMinutes(5), Duration.ofMinutes(1), 100);
        addFromEightThreads(wide, 1_000);

        assertThat(wide.of(c("shared"))).isEqualTo(new TopCustomers.Entry("shared", Customer.Kind.ACCOUNT, 8_000, 0));
        assertThat(wide.top(10)).hasSize(9).allSatisfy(e -> assertThat(e.overcount()).isZero());
    }

    @Test
    void oneThread_keepsOneStripe_soTheCountsAreThoseOfOneSummary() {
        for (int i = 0; i < 10_000; i++) {
            sketch.add(c("c" + i % 7), 1);
        }

        assertThat(sketch.stripeCount()).isEqualTo(1);
    }

    @Test
    void stripes_mergeOnRead_countsExactlyWhileCountersAreFree() {
        HeavyHitters striped = new HeavyHitters(clock, Duration.ofMinutes(5), Duration.ofMinutes(1), 3, 4);
        striped.addTo(0, c("a"), 2);
        striped.addTo(1, c("a"), 3);
        striped.addTo(3, c("a"), 4);
        striped.addTo(2, c("b"), 8);

        assertThat(striped.stripeCount()).isEqualTo(4);
        assertThat(striped.top(10)).containsExactly(
                new TopCustomers.Entry("a", Customer.Kind.ACCOUNT, 9, 0),
                new TopCustomers.Entry("b", Customer.Kind.ACCOUNT, 8, 0));
    }

    @Test
    void stripes_neverExceedTheProcessorsRoundedUpToAPowerOfTwo() {
        HeavyHitters striped = new HeavyHitters(clock, Duration.ofMinutes(5), Duration.ofMinutes(1), 3, 3);
        striped.addTo(3, c("a"), 1);

        assertThatThrownBy(() -> striped.addTo(4, c("a"), 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("stripe must be 0 to 3 but was 4");
        assertThat(striped.stripeCount()).isEqualTo(4);
    }

    @Test
    void everyCount_boundsTheTrueCount_whenOneStreamIsSpreadOverStripes() {
        HeavyHitters striped = new HeavyHitters(clock, Duration.ofMinutes(5), Duration.ofMinutes(1), 10, 4);
        java.util.Random random = new java.util.Random(7);
        java.util.Map<String, Long> truth = new java.util.HashMap<>();
        for (int i = 0; i < 20_000; i++) {
            String id = "c" + (int) Math.floor(Math.pow(200, random.nextDouble()));
            long weight = 1L + random.nextInt(3);
            striped.addTo(random.nextInt(4), c(id), weight);
            truth.merge(id, weight, Long::sum);
            if (i % 4_000 == 3_999) {
                clock.advance(Duration.ofMinutes(1));
            }
        }

        for (var e : truth.entrySet()) {
            TopCustomers.Entry estimate = striped.of(c(e.getKey()));
            assertThat(estimate.count()).as(e.getKey()).isGreaterThanOrEqualTo(e.getValue());
            assertThat(estimate.atLeast()).as(e.getKey()).isLessThanOrEqualTo(e.getValue());
        }
        assertThat(striped.top(1).get(0).customer()).isEqualTo("c1");
    }

    @Test
    void addFromManyThreads_withStripes_loosesNoCount() throws Exception {
        HeavyHitters wide = new HeavyHitters(clock, Duration.ofMinutes(5), Duration.ofMinutes(1), 100, 8);
        addFromEightThreads(wide, 20_000);

        assertThat(wide.of(c("shared"))).isEqualTo(new TopCustomers.Entry("shared", Customer.Kind.ACCOUNT, 160_000, 0));
        assertThat(wide.top(10)).hasSize(9).allSatisfy(e -> assertThat(e.overcount()).isZero());
        assertThat(wide.stripeCount()).isBetween(1, 8);
    }

    @Test
    void constructor_rejectsAWindowThatIsNotWholeSlots() {
        assertThatThrownBy(() -> new HeavyHitters(clock, Duration.ofSeconds(90), Duration.ofMinutes(1), 3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("window must be a whole number of slots but was PT1M30S for slots of PT1M");
        assertThatThrownBy(() -> new HeavyHitters(clock, Duration.ofMinutes(5), Duration.ofMinutes(1), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("counters must be >= 1 but was 0");
    }

    /** Eight threads, started at once, each adding {@code each} to its own customer and to "shared". */
    private void addFromEightThreads(HeavyHitters wide, int each) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new java.util.ArrayList<>();
            for (int t = 0; t < 8; t++) {
                String id = "t" + t;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < each; i++) {
                        wide.add(c(id), 1);
                        wide.add(c("shared"), 1);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
