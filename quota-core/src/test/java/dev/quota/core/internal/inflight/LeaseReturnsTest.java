package dev.quota.core.internal.inflight;

import static dev.quota.core.Configs.config;
import static dev.quota.core.Configs.greedy;
import static dev.quota.core.Configs.plan;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Concurrency;
import dev.quota.core.Customer;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaListener;
import dev.quota.core.QuotaService;
import dev.quota.core.Rule;
import dev.quota.core.spi.Adjustment;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.Take;
import dev.quota.core.store.ForwardingStore;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Leases given back off the response's thread ({@link QuotaService#releaseLater}): queued, then
 * several in one store call, each exactly once; the test runs the executor's jobs itself.
 */
class LeaseReturnsTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final Rule transfers = Rule.builder("transfers")
            .perCustomer(List.of(greedy("per-minute", 100, 100, Duration.ofMinutes(1)))).concurrency(Concurrency.of(2))
            .build();
    private final CountingStore store = new CountingStore(InMemoryStore.builder().clock(clock).build());
    /** The jobs the service handed its lease-return executor, run when the test says. */
    private final Queue<Runnable> jobs = new ArrayDeque<>();
    private final List<QuotaDecision> released = new CopyOnWriteArrayList<>();

    private QuotaService service() {
        return QuotaService.builder().store(store).leaseReturns(jobs::add)
                .config(config(List.of(plan("free", greedy("burst", 1_000, 1_000, Duration.ofHours(1)))),
                        List.of(transfers), List.of()))
                .listener(new QuotaListener() {
                    @Override
                    public void onRelease(QuotaDecision decision) {
                        released.add(decision);
                    }
                }).clock(clock).build();
    }

    @Test
    void releaseLater_sendsNothingUntilTheJobRuns_thenEveryCustomersLeaseInOneAdjustCall() {
        QuotaService service = service();
        List<QuotaDecision> running = new ArrayList<>();
        for (String id : List.of("alice", "bob", "carol")) {
            QuotaDecision decision = service.decide(Customer.of(id, "free"), "transfers");
            assertThat(decision.receipt().holdsLeases()).isTrue();
            running.add(decision);
        }

        running.forEach(service::releaseLater);

        assertThat(store.adjusts).as("nothing on the releasing thread").isEmpty();
        assertThat(jobs).as("one job for the three returns").hasSize(1);
        jobs.poll().run();
        assertThat(store.adjusts).as("one store call").hasSize(1);
        assertThat(store.adjusts.get(0)).as("the three lease sets").hasSize(3).allMatch(Adjustment::releasesLease);
        assertThat(released).containsExactlyElementsOf(running);
        assertThat(jobs).isEmpty();
    }

    @Test
    void releaseLater_ofTheSameDecisionTwice_givesItBackOnce() {
        QuotaService service = service();
        QuotaDecision decision = service.decide(Customer.of("alice", "free"), "transfers");

        service.releaseLater(decision);
        service.releaseLater(decision);
        service.release(decision);
        jobs.poll().run();

        assertThat(store.adjusts).hasSize(1);
        assertThat(store.adjusts.get(0)).hasSize(1);
        assertThat(store.releaseLeases.get()).isZero();
        assertThat(released).containsExactly(decision);
        assertThat(decision.receipt().holdsLeases()).isFalse();
    }

    @Test
    void twoLeasesOfOneLeaseSet_goInTwoCallsOfOneBatch_andBothSlotsAreFreeAgain() {
        QuotaService service = service();
        Customer alice = Customer.of("alice", "free");
        QuotaDecision first = service.decide(alice, "transfers");
        QuotaDecision second = service.decide(alice, "transfers");
        assertThat(service.decide(alice, "transfers").allowed()).as("two in flight: full").isFalse();

        service.releaseLater(first);
        service.releaseLater(second);
        jobs.poll().run();

        assertThat(store.adjusts).as("the store takes each key once per call").hasSize(2);
        assertThat(service.decide(alice, "transfers").allowed()).isTrue();
        assertThat(service.decide(alice, "transfers").allowed()).isTrue();
    }

    @Test
    void returnsQueuedWhileAStoreCallIsOnItsWay_goTogetherInTheNextCall() {
        QuotaService service = service();
        List<QuotaDecision> running = new ArrayList<>();
        for (String id : List.of("alice", "bob", "carol", "dave")) {
            running.add(service.decide(Customer.of(id, "free"), "transfers"));
        }
        // while the first return's store call is on its way, three more requests end
        store.duringAdjust = () -> running.subList(1, 4).forEach(service::releaseLater);

        service.releaseLater(running.get(0));
        jobs.poll().run();

        assertThat(store.adjusts).extracting(List::size).containsExactly(1, 3);
        assertThat(jobs).as("the running job took them: no second job").isEmpty();
        assertThat(released).containsExactlyElementsOf(running);
    }

    @Test
    void close_givesBackWhatIsStillQueued_byAnExecutorThatNeverRanTheJob() {
        QuotaService service = service();
        QuotaDecision decision = service.decide(Customer.of("alice", "free"), "transfers");
        service.releaseLater(decision);
        jobs.clear();

        service.close();

        assertThat(store.adjusts).hasSize(1);
        assertThat(released).containsExactly(decision);
    }

    @Test
    void close_waitsForTheServicesOwnReturnThread() {
        QuotaService service = QuotaService.builder().store(store)
                .config(config(List.of(plan("free", greedy("burst", 1_000, 1_000, Duration.ofHours(1)))),
                        List.of(transfers), List.of()))
                .clock(clock).build();
        for (String id : List.of("alice", "bob", "carol")) {
            service.releaseLater(service.decide(Customer.of(id, "free"), "transfers"));
        }

        service.close();

        assertThat(store.adjusts.stream().mapToInt(List::size).sum()).isEqualTo(3);
    }

    @Test
    void aRequestRefusedForALeaseOnItsWayBack_waitsForTheReturn_andIsAdmitted() throws Exception {
        CountDownLatch refused = new CountDownLatch(1);
        QuotaService service = QuotaService.builder().store(store)
                .leaseReturns(job -> new Thread(job, "test-lease-returns").start())
                .config(config(List.of(plan("free", greedy("burst", 1_000, 1_000, Duration.ofHours(1)))),
                        List.of(transfers.withConcurrency(Concurrency.of(1))), List.of()))
                .clock(clock).build();
        Customer alice = Customer.of("alice", "free");
        QuotaDecision first = service.decide(alice, "transfers");
        // the return reaches the store only once the next request's first consume was refused
        store.duringAdjust = () -> await(refused);
        store.afterConsume = refused::countDown;
        int consumesBefore = store.consumes.get();

        service.releaseLater(first);
        QuotaDecision next = service.decide(alice, "transfers");

        assertThat(next.allowed()).as("%s; adjusts %s", next, store.adjusts).isTrue();
        assertThat(store.consumes.get() - consumesBefore).as("refused, then decided again").isEqualTo(2);
        assertThat(store.adjusts).hasSize(1);
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** The in-JVM store, counting its calls. */
    private static final class CountingStore extends ForwardingStore {
        final List<List<Adjustment>> adjusts = new CopyOnWriteArrayList<>();
        final AtomicInteger releaseLeases = new AtomicInteger();
        final AtomicInteger consumes = new AtomicInteger();
        volatile Runnable duringAdjust = () -> { };
        volatile Runnable afterConsume = () -> { };

        CountingStore(InMemoryStore delegate) {
            super(delegate);
        }

        @Override
        protected void before(String operation) {
            if (operation.equals("release")) {
                releaseLeases.incrementAndGet();
            }
        }

        @Override
        public List<ConsumeResult> tryConsume(List<Take> takes) {
            consumes.incrementAndGet();
            List<ConsumeResult> results = super.tryConsume(takes);
            afterConsume.run();
            return results;
        }

        @Override
        public void adjust(List<Adjustment> adjustments) {
            adjusts.add(List.copyOf(adjustments));
            Runnable during = duringAdjust;
            duringAdjust = () -> { };
            during.run();
            super.adjust(adjustments);
        }
    }
}
