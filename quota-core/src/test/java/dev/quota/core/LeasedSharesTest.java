package dev.quota.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.internal.lease.LeasedShares;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.spi.Take;
import dev.quota.core.store.ForwardingStore;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Leased shares of hot buckets on a real in-JVM store, time moved by hand and batches swept by the
 * test: when a batch is taken and how big, that it costs no store call and serves without one, that
 * what it did not spend goes back (deadline, reload, a store outage, close), and that a decision
 * over a batch and stored buckets stays all or nothing. Plan {@code big}: 10,000 an hour, refilled
 * all at once (no refill between the steps); the defaults: hot at 50 decisions a second, 500 ms
 * batches of at most 10% of the capacity.
 */
class LeasedSharesTest {

    private static final Limit BIG = new Limit("hourly", 10_000, Refill.interval(10_000, Duration.ofHours(1)));
    private static final Limit THREE = new Limit("hourly", 3, Refill.interval(3, Duration.ofHours(1)));
    private static final Customer ACME = Customer.of("acme", "big");

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final InMemoryStore memory = InMemoryStore.builder().clock(clock).build();
    private final Counting store = new Counting(memory);
    private final List<QuotaService> services = new ArrayList<>();

    @AfterEach
    void close() {
        services.forEach(QuotaService::close);
        memory.close();
    }

    private QuotaConfig config(Leasing leasing) {
        return QuotaConfig.builder()
                .plan(Plan.of("big", List.of(BIG), FailurePolicy.CLOSED))
                .rule(Rule.builder("transfers").perCustomer(List.of(THREE)).build())
                .rule(Rule.builder("exports")
                        .shared(List.of(new Limit("shared", 10_000, Refill.interval(10_000, Duration.ofHours(1)))))
                        .build())
                .customer(ACME)
                .leasing(leasing)
                .build();
    }

    private QuotaService service(QuotaStore on, TokenLeasing leasing, Leasing configured) {
        QuotaService service = QuotaService.builder().store(on).clock(clock).config(config(configured))
                .tokenLeasing(leasing).sweepLeasesByHand().build();
        services.add(service);
        return service;
    }

    private QuotaService service() {
        return service(store, TokenLeasing.DEFAULT, Leasing.ON);
    }

    private long planLeft(QuotaService service) {
        return memory.peek(store.keys.get("plan"), BucketSpec.of(List.of(BIG), service.config().version()))
                .remaining()[0];
    }

    private static void decide(QuotaService service, int times) {
        for (int i = 0; i < times; i++) {
            assertThat(service.decide(ACME, null).outcome()).isEqualTo(QuotaDecision.Outcome.ALLOWED);
        }
    }

    @Test
    void hotBucket_takesItsBatchInTheSameStoreCall_andServesTheNextDecisionsWithoutAny() {
        QuotaService service = service();

        decide(service, 49);
        assertThat(store.consumes).as("cold: one store call a decision").hasValue(49);
        assertThat(service.leasedTokens().batches()).isZero();

        decide(service, 1); // the 50th in this second: hot, asks ceil(50 x 0.5 s) = 25 extra
        assertThat(store.consumes).as("the batch came with the decision's own call").hasValue(50);
        assertThat(service.leasedTokens().taken()).isEqualTo(25);
        assertThat(planLeft(service)).isEqualTo(10_000 - 50 - 25);

        decide(service, 25);
        assertThat(store.consumes).as("served from the batch: no store call").hasValue(50);
        assertThat(service.leasedTokens().served()).isEqualTo(25);
        assertThat(service.leasedTokens().held()).isZero();

        decide(service, 1); // the batch is spent: the 76th asks ceil(76 x 0.5) = 38
        assertThat(store.consumes).hasValue(51);
        assertThat(service.leasedTokens().taken()).isEqualTo(25 + 38);
        assertThat(planLeft(service)).as("every token taken once").isEqualTo(10_000 - 50 - 25 - 1 - 38);
    }

    @Test
    void listener_isToldEachEventWithTheLimitsPolicy_andAnOldListenerStillHearsIt() {
        List<String> heard = new ArrayList<>();
        List<String> old = new ArrayList<>();
        QuotaListener byPolicy = new QuotaListener() {
            @Override
            public void onLeasedTokens(TokenLeasing.Event event, String policy, long tokens) {
                heard.add(event + " " + policy + " " + tokens);
            }
        };
        QuotaListener withoutPolicy = new QuotaListener() {
            @Override
            public void onLeasedTokens(TokenLeasing.Event event, long tokens) {
                old.add(event + " " + tokens);
            }
        };
        QuotaService service = QuotaService.builder().store(store).clock(clock).config(config(Leasing.ON))
                .listener(byPolicy).listener(withoutPolicy).sweepLeasesByHand().build();
        services.add(service);

        decide(service, 55); // hot at the 50th: a batch of 25, of which 5 served
        clock.advance(Duration.ofMillis(500));
        java.util.Objects.requireNonNull(service.shares()).sweep();

        assertThat(heard).containsExactly("TAKEN big-hourly 25", "EXPIRED big-hourly 20", "RETURNED big-hourly 20");
        assertThat(old).containsExactly("TAKEN 25", "EXPIRED 20", "RETURNED 20");
    }

    @Test
    void returnsOfOneSweep_areToldOncePerPolicy_andALostReturnToo() {
        List<String> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
        AtomicBoolean failAdjust = new AtomicBoolean();
        QuotaStore failing = new ForwardingStore(store) {
            @Override
            protected void before(String operation) {
                if (operation.equals("adjust") && failAdjust.get()) {
                    throw new QuotaStoreException("timed out, maybe applied (test)");
                }
            }
        };
        QuotaService service = QuotaService.builder().store(failing).clock(clock).config(config(Leasing.ON))
                .listener(new QuotaListener() {
                    @Override
                    public void onLeasedTokens(TokenLeasing.Event event, String policy, long tokens) {
                        heard.add(event + " " + policy + " " + tokens);
                    }
                }).sweepLeasesByHand().build();
        services.add(service);
        LeasedShares shares = java.util.Objects.requireNonNull(service.shares());

        for (int i = 0; i < 55; i++) { // plan and shared bucket both hot at the 50th: 25 each, 5 served
            assertThat(service.decide(ACME, "exports").allowed()).isTrue();
        }
        clock.advance(Duration.ofMillis(500));
        shares.sweep();

        assertThat(heard).containsExactlyInAnyOrder("TAKEN big-hourly 25", "TAKEN exports-shared 25",
                "EXPIRED big-hourly 20", "EXPIRED exports-shared 20",
                "RETURNED big-hourly 20", "RETURNED exports-shared 20");
        assertThat(service.leasedTokens().returned()).isEqualTo(40);

        heard.clear();
        assertThat(service.decide(ACME, "exports").allowed()).isTrue(); // the 56th in this second: 28 each
        clock.advance(Duration.ofMillis(500));
        failAdjust.set(true);
        shares.sweep();

        assertThat(heard).containsExactlyInAnyOrder("TAKEN big-hourly 28", "TAKEN exports-shared 28",
                "EXPIRED big-hourly 28", "EXPIRED exports-shared 28", "LOST big-hourly 28", "LOST exports-shared 28");
        assertThat(service.leasedTokens().lost()).isEqualTo(56);
    }

    @Test
    void batch_isNeverAboveItsShareOfTheCapacity_overTheLiveInstances() {
        QuotaService service = QuotaService.builder().store(store).clock(clock).config(config(Leasing.ON))
                .liveInstances(() -> 40).sweepLeasesByHand().build();
        services.add(service);

        decide(service, 50); // demand asks 25; 10% of 10,000 over 40 instances is 25: the cap
        decide(service, 26);
        decide(service, 200); // demand asks 138 now; the cap stays 25

        assertThat(service.leasedTokens().taken()).isEqualTo(25 * service.leasedTokens().batches());
        assertThat(service.leasedTokens().held()).isLessThanOrEqualTo(25);
        assertThat(TokenLeasing.DEFAULT.heldAtMost(10_000, 40, 1)).isEqualTo(1_000);
    }

    @Test
    void batch_pastItsDeadline_givesBackWhatItDidNotSpend_offTheRequestPath_once() {
        QuotaService service = service();
        decide(service, 50);
        decide(service, 5); // 20 of the 25 left
        LeasedShares shares = java.util.Objects.requireNonNull(service.shares());

        shares.sweep();
        assertThat(store.adjusts).as("not due yet").hasValue(0);

        clock.advance(Duration.ofMillis(500));
        shares.sweep();
        shares.sweep();

        assertThat(store.adjusts).as("one store call for every return").hasValue(1);
        assertThat(service.leasedTokens().returned()).isEqualTo(20);
        assertThat(service.leasedTokens().expired()).isEqualTo(1);
        assertThat(planLeft(service)).as("only what was admitted is gone").isEqualTo(10_000 - 55);
    }

    @Test
    void reload_givesTheBatchesBack() {
        QuotaService service = service();
        decide(service, 50);
        decide(service, 5);

        service.reload(config(Leasing.ON));
        java.util.Objects.requireNonNull(service.shares()).sweep();

        assertThat(service.leasedTokens().returned()).isEqualTo(20);
        assertThat(service.leasedTokens().held()).isZero();
        assertThat(planLeft(service)).isEqualTo(10_000 - 55);
        decide(service, 1);
        assertThat(store.consumes).as("the next decision goes to the store").hasValue(51);
    }

    @Test
    void storeOutage_retiresTheBatches_andTheyGoBackOnceTheStoreAnswers_neverLost() {
        AtomicBoolean down = new AtomicBoolean();
        QuotaStore failing = new ForwardingStore(store) {
            @Override
            protected void before(String operation) {
                if (down.get()) {
                    throw QuotaStoreException.outage("breaker open (test)");
                }
            }
        };
        QuotaService service = service(failing, TokenLeasing.DEFAULT, Leasing.ON);
        decide(service, 50);
        decide(service, 5);
        LeasedShares shares = java.util.Objects.requireNonNull(service.shares());

        down.set(true);
        QuotaDecision other = service.decide(ACME, "exports"); // reaches the store: the outage is known
        assertThat(other.outcome()).isEqualTo(QuotaDecision.Outcome.UNAVAILABLE);
        QuotaDecision hot = service.decide(ACME, null);
        assertThat(hot.outcome()).as("no batch serves beside the failure policy")
                .isEqualTo(QuotaDecision.Outcome.UNAVAILABLE);
        shares.sweep();
        assertThat(service.leasedTokens().returned()).as("the breaker did not call the store: kept").isZero();

        down.set(false);
        shares.sweep();

        assertThat(service.leasedTokens().returned()).isEqualTo(20);
        assertThat(service.leasedTokens().lost()).isZero();
        assertThat(planLeft(service)).isEqualTo(10_000 - 55);
    }

    @Test
    void close_givesTheBatchesBack() {
        QuotaService service = service();
        decide(service, 50);
        decide(service, 5);

        service.close();
        services.remove(service);

        assertThat(memory.peek(store.keys.get("plan"), BucketSpec.of(List.of(BIG), service.config().version()))
                .remaining()[0]).isEqualTo(10_000 - 55);
    }

    @Test
    void close_whileTheSweeperIsGivingBatchesBack_waitsForIt_andLosesNoToken() throws Exception {
        java.util.concurrent.CountDownLatch sending = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch answer = new java.util.concurrent.CountDownLatch(1);
        QuotaStore slow = new ForwardingStore(store) {
            @Override
            protected void before(String operation) {
                if (!operation.equals("adjust") || !Thread.currentThread().getName().equals("quota-leased-shares")) {
                    return;
                }
                sending.countDown();
                try {
                    answer.await(); // a store call in flight, as a Redis client waits for its reply
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new QuotaStoreException("interrupted while waiting for the store (test)", e);
                }
            }
        };
        QuotaService service = QuotaService.builder().store(slow).clock(clock).config(config(Leasing.ON)).build();
        decide(service, 50);
        decide(service, 5); // a batch of 25, 20 of them unspent
        clock.advance(Duration.ofMillis(500)); // the sweeper's next run gives them back

        sending.await();
        Thread closing = new Thread(service::close, "closing");
        closing.start();
        while (closing.getState() != Thread.State.BLOCKED && closing.isAlive()) {
            Thread.onSpinWait(); // close waits for the sweep in flight (or, wrongly, cut it short)
        }
        answer.countDown();
        closing.join();

        assertThat(service.leasedTokens().lost()).as("the return in flight was not cut short").isZero();
        assertThat(service.leasedTokens().returned()).isEqualTo(20);
        assertThat(planLeft(service)).isEqualTo(10_000 - 55);
    }

    @Test
    void leasedPlan_withItsRuleRefusing_isAllOrNothing_theBatchKeepsOnlyTheRefusedRequestsToken() {
        QuotaService service = service();
        decide(service, 50); // the plan's batch: 25
        int callsBefore = store.consumes.get();

        for (int i = 0; i < 3; i++) {
            assertThat(service.decide(ACME, "transfers").outcome()).isEqualTo(QuotaDecision.Outcome.ALLOWED);
        }
        assertThat(service.leasedTokens().held()).as("the plan's tokens came from the batch").isEqualTo(22);

        QuotaDecision refused = service.decide(ACME, "transfers");

        assertThat(refused.outcome()).isEqualTo(QuotaDecision.Outcome.REJECTED);
        assertThat(refused.violated()).isNotNull();
        assertThat(java.util.Objects.requireNonNull(refused.violated()).role()).isEqualTo(LimitStatus.Role.RULE);
        assertThat(service.leasedTokens().held()).as("the refused request costs its plan 1 token, as stored")
                .isEqualTo(21);
        assertThat(store.consumes.get() - callsBefore).as("one store call each: the rule's bucket").isEqualTo(4);
        assertThat(planLeft(service)).as("the store's plan bucket did not see them").isEqualTo(10_000 - 75);
    }

    @Test
    void leasingOff_globally_inTheConfig_orForOneRule_takesNoBatch() {
        QuotaService off = service(store, TokenLeasing.OFF, Leasing.ON);
        decide(off, 200);
        assertThat(off.leasedTokens().batches()).isZero();
        assertThat(store.consumes).hasValue(200);

        QuotaService configOff = service(store, TokenLeasing.DEFAULT, Leasing.OFF);
        decide(configOff, 200);
        assertThat(configOff.leasedTokens().batches()).isZero();

        QuotaService ruleOff = service(store, TokenLeasing.DEFAULT, new Leasing(true, Set.of("big"), Set.of("exports")));
        for (int i = 0; i < 200; i++) {
            ruleOff.decide(ACME, "exports");
        }
        assertThat(ruleOff.leasedTokens().batches()).as("plan big and rule exports are off").isZero();
    }

    @Test
    void sharedRule_hotOverManyCustomers_isLeased_andEveryCustomersPlanStaysStored() {
        QuotaConfig.Builder builder = config(Leasing.ON).toBuilder();
        for (int c = 0; c < 60; c++) {
            builder.customer(Customer.of("c" + c, "big"));
        }
        QuotaService service = QuotaService.builder().store(store).clock(clock).config(builder.build())
                .sweepLeasesByHand().build();
        services.add(service);

        for (int c = 0; c < 60; c++) {
            assertThat(service.decide(Customer.of("c" + c, "big"), "exports").outcome())
                    .isEqualTo(QuotaDecision.Outcome.ALLOWED);
        }

        assertThat(service.leasedTokens().batches()).as("the shared bucket, hot at the 50th").isEqualTo(1);
        assertThat(service.leasedTokens().served()).as("the shared take of the last 10").isEqualTo(10);
        assertThat(store.consumes).as("each customer's plan still goes to the store").hasValue(60);
    }

    @Test
    void refusal_whileThisInstancesBatchIsOnItsWay_waitsForIt_andIsServedFromIt_exactlyTheCapacity() throws Exception {
        // plan of 100: the 50th decision asks a batch of min(ceil(50 x 0.5), 10% of 100) = 10, the
        // store keeps 40; the batch's reply is held while those 40 are taken, and the next decision
        // is refused by the store with the bucket's last 10 tokens in the batch on its way
        Limit hundred = new Limit("hourly", 100, Refill.interval(100, Duration.ofHours(1)));
        java.util.concurrent.CountDownLatch asked = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch reply = new java.util.concurrent.CountDownLatch(1);
        QuotaStore held = new ForwardingStore(store) {
            @Override
            protected void before(String operation) {
            }

            @Override
            public List<ConsumeResult> tryConsume(List<Take> takes) {
                List<ConsumeResult> results = super.tryConsume(takes);
                if (takes.get(0).extra() > 0 && asked.getCount() > 0) {
                    asked.countDown();
                    try {
                        reply.await(); // applied by the store, its reply still on the way
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return results;
            }
        };
        QuotaService service = QuotaService.builder().store(held).clock(clock)
                .config(QuotaConfig.builder().plan(Plan.of("big", List.of(hundred), FailurePolicy.CLOSED))
                        .customer(ACME).build())
                .sweepLeasesByHand().build();
        services.add(service);
        decide(service, 49);
        AtomicInteger admitted = new AtomicInteger(49);
        Thread asking = new Thread(() -> {
            if (service.decide(ACME, null).allowed()) {
                admitted.incrementAndGet();
            }
        }, "asking");
        asking.start();
        asked.await();
        decide(service, 40);
        admitted.addAndGet(40);

        AtomicInteger refusedThenServed = new AtomicInteger();
        Thread refused = new Thread(() -> {
            if (service.decide(ACME, null).allowed()) {
                refusedThenServed.incrementAndGet();
            }
        }, "refused");
        refused.start();
        while (refused.getState() != Thread.State.TIMED_WAITING && refused.isAlive()) {
            Thread.onSpinWait(); // refused by the store: waits for the batch this instance asked for
        }
        reply.countDown();
        asking.join();
        refused.join();
        int more = 0;
        while (service.decide(ACME, null).allowed()) {
            more++;
        }

        assertThat(refusedThenServed).as("served from the batch that held the last tokens").hasValue(1);
        assertThat(admitted.get() + refusedThenServed.get() + more).as("exactly the capacity").isEqualTo(100);
        assertThat(service.leasedTokens().taken()).isEqualTo(10);
        assertThat(service.leasedTokens().held()).isZero();
    }

    /** Counts the store's calls and remembers the key of the first bucket it was asked for (the plan's). */
    static final class Counting extends ForwardingStore {
        final AtomicInteger consumes = new AtomicInteger();
        final AtomicInteger adjusts = new AtomicInteger();
        final Map<String, BucketKey> keys = new ConcurrentHashMap<>();

        Counting(QuotaStore delegate) {
            super(delegate);
        }

        @Override
        protected void before(String operation) {
            if (operation.equals("consume")) {
                consumes.incrementAndGet();
            } else if (operation.equals("adjust")) {
                adjusts.incrementAndGet();
            }
        }

        @Override
        public List<ConsumeResult> tryConsume(List<Take> takes) {
            keys.putIfAbsent("plan", takes.get(0).key());
            return super.tryConsume(takes);
        }

        /** Leaves the in-JVM store open: the test reads it after a service closed. */
        @Override
        public void close() {
        }
    }
}
