package dev.quota.core.internal.lease;

import dev.quota.core.Leasing;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaListener;
import dev.quota.core.QuotaStoreException;
import dev.quota.core.TokenLeasing;
import dev.quota.core.internal.LogThrottle;
import dev.quota.core.spi.Adjustment;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ChargeRule;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.spi.Take;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leased shares of hot buckets ({@link TokenLeasing}): the one seam between a decision and the
 * batches of tokens this instance holds. The decision engine lets it make each decision on the
 * shared store ({@link #consume}): it finds which takes a batch serves ({@link #begin}), and the
 * takes no batch served go to the store in one call, asking extra tokens for the hot buckets among
 * them; none when every take was served.
 *
 * <p>Invariants. A batch's tokens left the shared bucket in the store call that took them (as
 * {@link Take#extra()}, only when that consume was admitted), before any request is admitted on
 * them; a take served from a batch takes its tokens from it under the batch's lock. So every token
 * a request is admitted on was taken from the store once, and the instances together never admit
 * more than the limit. A batch's unspent tokens go back to the store at most once: a batch is
 * retired (its tokens moved to the return queue, its generation raised) under its lock, and a
 * decision's tokens given back to a batch that was retired since go to the return queue instead.
 * The queue is drained by one thread at a time ({@link #sweep}: the background sweeper, or
 * {@link #close}); a return the store certainly did not apply (an established outage: the breaker
 * did not call it) is queued again; one that may have been applied is not sent twice, its tokens
 * count as lost (under-admission until the bucket refills, never over-admission).
 *
 * <p>All or nothing: when the store refuses the takes it got, a take served from a batch gives its
 * tokens back to the batch, except the refusal tokens {@link ChargeRule} charges it (a plan's
 * refused request costs 1 token), which it keeps when every charged take the store saw paid its own.
 *
 * <p>Who owns what: a {@link HotBucket}'s fields belong to its lock; the share map and the return
 * queue are concurrent. A share with no batch and no request asking for one is dropped after two
 * quiet seconds, under its lock (it is marked dead, so nothing is added to it afterwards).
 */
public final class LeasedShares implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeasedShares.class);
    private static final long SECOND = 1_000_000_000L;

    private final QuotaStore store;
    private final Clock clock;
    private final TokenLeasing settings;
    private final long leaseNanos;
    private final Supplier<QuotaConfig> config;
    private final QuotaListener listener;
    private final ConcurrentHashMap<String, HotBucket> shares = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Returning> returns = new ConcurrentLinkedQueue<>();
    private final @Nullable ScheduledExecutorService sweeper;
    private final LogThrottle lostWarnings;
    private final LongAdder batches = new LongAdder();
    private final LongAdder taken = new LongAdder();
    private final LongAdder served = new LongAdder();
    private final LongAdder returned = new LongAdder();
    private final LongAdder expired = new LongAdder();
    private final LongAdder lost = new LongAdder();

    /**
     * @param background whether a daemon thread sweeps expired batches and sends the returns; a
     *                   test calls {@link #sweep} itself instead
     */
    public LeasedShares(QuotaStore store, Clock clock, TokenLeasing settings, Supplier<QuotaConfig> config,
                        QuotaListener listener, boolean background) {
        this.store = store;
        this.clock = clock;
        this.settings = settings;
        this.leaseNanos = settings.leaseTime().toNanos();
        this.config = config;
        this.listener = listener;
        this.lostWarnings = new LogThrottle(clock, 1, 1, Duration.ZERO);
        if (background) {
            long period = Math.max(1_000_000L, leaseNanos / 4);
            this.sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread thread = new Thread(r, "quota-leased-shares");
                thread.setDaemon(true);
                return thread;
            });
            // the future is not kept: sweepQuietly logs its own failures, so no run ends the schedule,
            // and close() ends it by shutting the executor down
            ScheduledFuture<?> unused =
                    sweeper.scheduleWithFixedDelay(this::sweepQuietly, period, period, TimeUnit.NANOSECONDS);
        } else {
            this.sweeper = null;
        }
    }

    /** Tokens queued to go back to the store, with the policy the listener is told they are of. */
    private record Returning(Adjustment adjustment, String policy) {
    }

    /** One decision's use of the batches: per take, the share asked, and what it answered. */
    static final class Lease {
        final @Nullable HotBucket[] shares;
        /** Per take: the batch generation it was served from, or -1; else the extra asked for (0: none). */
        final long[] served;
        final long[] extra;
        final long nowNanos;
        int servedCount;

        Lease(int n, long nowNanos) {
            this.shares = new HotBucket[n];
            this.served = new long[n];
            this.extra = new long[n];
            this.nowNanos = nowNanos;
            Arrays.fill(served, -1);
        }
    }

    /**
     * The decision of {@code takes} on the shared store, through the batches: {@link #begin}, then
     * the store call ({@link #decide}, or the plain {@link QuotaStore#tryConsume} when no batch
     * serves or is asked for). A refusal that took nothing is made once more when every take the
     * store found short is on a bucket whose batch, taken by a decision of this instance in flight
     * meanwhile, now holds its tokens ({@link #coveredNow}): without it, a burst's concurrent
     * decisions are refused while the batch that holds the bucket's last tokens is on its way, and
     * those tokens are served to nobody until the batch goes back.
     *
     * @throws RuntimeException what the store threw, after the served tokens went back to their batches
     */
    public List<ConsumeResult> consume(List<? extends LeaseCandidate> slots, List<Take> takes, int instances) {
        Lease lease = begin(slots, takes, instances);
        List<ConsumeResult> results = lease == null ? store.tryConsume(takes) : decide(lease, takes);
        if (ChargeRule.admitted(takes, results) || !coveredNow(takes, results)) {
            return results;
        }
        Lease again = begin(slots, takes, instances);
        return again == null ? results : decide(again, takes);
    }

    /**
     * Whether a refused decision is worth making again: it took nothing (no refusal tokens were
     * charged, so the first try left no trace), and each enforced take short of tokens is on a bucket
     * this instance holds a batch of that covers it, once an ask in flight was answered.
     */
    private boolean coveredNow(List<Take> takes, List<ConsumeResult> results) {
        long now = -1;
        boolean lacking = false;
        for (int i = 0; i < takes.size(); i++) {
            if (results.get(i).tokensTaken()) {
                return false;
            }
        }
        for (int i = 0; i < takes.size(); i++) {
            Take take = takes.get(i);
            if (take.shadow() || results.get(i).sufficient()) {
                continue;
            }
            HotBucket share = shares.get(take.key().value());
            now = now < 0 ? nanos() : now;
            if (share == null || !share.covers(take.tokens(), take.spec(), now, leaseNanos)) {
                return false;
            }
            lacking = true;
        }
        return lacking;
    }

    /**
     * Which of a decision's takes a batch serves, and which ask for a batch: null when none does
     * either (the plain path: every take goes to the store as it is). Counts the decision towards
     * each leasable bucket's demand.
     */
    private @Nullable Lease begin(List<? extends LeaseCandidate> slots, List<Take> takes, int instances) {
        Leasing leasing = config.get().leasing();
        if (!leasing.enabled()) {
            return null;
        }
        Lease lease = null;
        long now = -1;
        for (int i = 0; i < slots.size(); i++) {
            String policy = slots.get(i).leasedPolicy(leasing);
            if (policy == null) {
                continue;
            }
            now = now < 0 ? nanos() : now;
            Take take = takes.get(i);
            HotBucket share = share(take.key(), policy);
            if (share == null) {
                continue;
            }
            long claim = share.claim(take.tokens(), take.spec(), now, instances);
            if (claim == 0) {
                continue;
            }
            lease = lease != null ? lease : new Lease(slots.size(), now);
            lease.shares[i] = share;
            if (claim < 0) {
                lease.served[i] = -claim - 1;
                lease.servedCount++;
            } else {
                lease.extra[i] = claim;
            }
        }
        return lease;
    }

    /**
     * The decision of {@code takes} under {@code lease}: the takes no batch served go to the store in
     * one call (none when every one was), the hot ones asking for their batch; then all or nothing
     * across both (see the class comment). One result per take, in order.
     *
     * @throws RuntimeException what the store threw, after the served tokens went back to their batches
     */
    private List<ConsumeResult> decide(Lease lease, List<Take> takes) {
        int n = takes.size();
        ConsumeResult[] results = new ConsumeResult[n];
        if (lease.servedCount == n) {
            for (int i = 0; i < n; i++) {
                results[i] = served(lease, takes.get(i), i);
            }
            served.add(n);
            return List.of(results);
        }
        List<Take> stored = new ArrayList<>(n - lease.servedCount);
        for (int i = 0; i < n; i++) {
            if (lease.served[i] < 0) {
                stored.add(lease.extra[i] > 0 ? takes.get(i).withExtra(lease.extra[i]) : takes.get(i));
            }
        }
        List<ConsumeResult> answered;
        try {
            answered = store.tryConsume(stored);
        } catch (RuntimeException e) {
            undo(lease, takes);
            throw e;
        }
        boolean admitted = ChargeRule.admitted(stored, answered);
        boolean chargesPaid = true; // whether every charged take the store saw paid its refusal tokens
        for (int j = 0; j < stored.size(); j++) {
            chargesPaid &= !stored.get(j).chargedOnRefusal() || answered.get(j).tokensTaken();
        }
        int j = 0;
        for (int i = 0; i < n; i++) {
            Take take = takes.get(i);
            if (lease.served[i] >= 0) {
                if (admitted) {
                    results[i] = served(lease, take, i);
                    served.increment();
                } else {
                    long keep = take.chargedOnRefusal() && chargesPaid ? take.refusalTokens() : 0;
                    giveBack(lease, take, i, take.tokens() - keep);
                    ConsumeResult view = served(lease, take, i);
                    results[i] = keep > 0 ? ConsumeResult.taken(view.remaining(), 0, view.nanosToFull())
                            : ConsumeResult.notTaken(view.remaining(), 0, view.nanosToFull());
                }
                continue;
            }
            ConsumeResult result = answered.get(j++);
            HotBucket share = lease.shares[i];
            if (share != null && lease.extra[i] > 0) {
                long extra = result.extraTaken();
                share.accept(extra, take.spec(), result, lease.nowNanos);
                if (extra > 0) {
                    batches.increment();
                    taken.add(extra);
                    listener.onLeasedTokens(TokenLeasing.Event.TAKEN, share.policy, extra);
                    result = withBatch(result, take.spec(), extra);
                }
            }
            results[i] = result;
        }
        return List.of(results);
    }

    /** Gives back what {@code lease} took from batches and clears its asks, when its decision failed. */
    private void undo(Lease lease, List<Take> takes) {
        for (int i = 0; i < takes.size(); i++) {
            HotBucket share = lease.shares[i];
            if (share == null) {
                continue;
            }
            if (lease.served[i] >= 0) {
                giveBack(lease, takes.get(i), i, takes.get(i).tokens());
            } else if (lease.extra[i] > 0) {
                share.accept(0, takes.get(i).spec(), null, lease.nowNanos);
            }
        }
    }

    private void giveBack(Lease lease, Take take, int i, long tokens) {
        HotBucket share = lease.shares[i];
        if (tokens > 0 && share != null && !share.giveBack(tokens, lease.served[i])) {
            returns.add(new Returning(Adjustment.ofTokens(take.key(), take.spec(), tokens), share.policy));
        }
    }

    /** The answer for a take a batch served: taken, with the bucket as this instance last saw it plus its batch. */
    private static ConsumeResult served(Lease lease, Take take, int i) {
        HotBucket share = Objects.requireNonNull(lease.shares[i], "served by a share");
        return share.view(take.spec(), lease.nowNanos);
    }

    /** {@code result} of a take that brought a batch of {@code extra}: its remaining counts the batch. */
    private static ConsumeResult withBatch(ConsumeResult result, BucketSpec spec, long extra) {
        long[] remaining = result.remaining().clone();
        for (int k = 0; k < remaining.length; k++) {
            remaining[k] = Math.min(spec.limits().get(k).capacity(), remaining[k] + extra);
        }
        // extra tokens are taken only on an admitted consume: the take's own tokens were taken too
        return ConsumeResult.taken(remaining, result.nanosToWait(), result.nanosToFull(), result.lease(), extra);
    }

    /** The share of bucket {@code key}, named after its first limit's {@code policy}; null past {@code maxKeys}. */
    private @Nullable HotBucket share(BucketKey key, String policy) {
        HotBucket share = shares.get(key.value());
        if (share != null || shares.size() >= settings.maxKeys()) {
            return share;
        }
        return shares.computeIfAbsent(key.value(), k -> new HotBucket(key, policy, settings, leaseNanos,
                adjustment -> returns.add(new Returning(adjustment, policy))));
    }

    /**
     * Retires every batch whose deadline has passed, drops quiet shares, and sends what is queued
     * to go back in one store call. Runs on the sweeper thread (or a test's).
     */
    public synchronized void sweep() {
        long now = nanos();
        for (HotBucket share : shares.values()) {
            long left = share.expire(now);
            if (left > 0) {
                expired.increment();
                listener.onLeasedTokens(TokenLeasing.Event.EXPIRED, share.policy, left);
            }
            if (share.dead()) {
                shares.remove(share.key.value(), share);
            }
        }
        sendReturns();
    }

    private void sweepQuietly() {
        try {
            sweep();
        } catch (RuntimeException e) {
            log.warn("leased shares: sweep failed", e);
        }
    }

    /** Retires every batch (a reload, a store outage): their tokens go back with the next sweep. */
    public void retireAll() {
        for (HotBucket share : shares.values()) {
            share.retire();
        }
    }

    /** Drops the batch of {@code key} without giving it back: the bucket was reset, and starts full. */
    public void forget(BucketKey key) {
        HotBucket share = shares.get(key.value());
        if (share != null) {
            share.drop();
        }
    }

    /** What this instance did with leased tokens since it started. */
    public TokenLeasing.Counts counts() {
        long held = 0;
        for (HotBucket share : shares.values()) {
            held += share.held();
        }
        return new TokenLeasing.Counts(batches.sum(), taken.sum(), served.sum(), returned.sum(), expired.sum(),
                lost.sum(), held);
    }

    /**
     * Stops the sweeper, retires every batch and gives the tokens back in one store call. A sweep
     * in flight is waited for, not interrupted: cut short, its store call could not tell whether
     * the store applied the return, and those tokens would be lost.
     */
    @Override
    public void close() {
        if (sweeper != null) {
            sweeper.shutdown();
        }
        retireAll();
        synchronized (this) {
            sendReturns();
        }
    }

    /**
     * Sends the queued returns, merged per bucket, in one store call; the listener is told once per
     * policy. Only under this object's lock.
     */
    private void sendReturns() {
        Map<String, Returning> merged = new LinkedHashMap<>();
        for (Returning next = returns.poll(); next != null; next = returns.poll()) {
            merged.merge(next.adjustment().key().value(), next, (a, b) -> new Returning(Adjustment.ofTokens(
                    b.adjustment().key(), b.adjustment().spec(), a.adjustment().tokens() + b.adjustment().tokens()),
                    b.policy()));
        }
        if (merged.isEmpty()) {
            return;
        }
        List<Returning> queued = List.copyOf(merged.values());
        List<Adjustment> batch = new ArrayList<>(queued.size());
        Map<String, Long> perPolicy = new LinkedHashMap<>();
        long tokens = 0;
        for (Returning returning : queued) {
            batch.add(returning.adjustment());
            tokens += returning.adjustment().tokens();
            perPolicy.merge(returning.policy(), returning.adjustment().tokens(), Long::sum);
        }
        try {
            store.adjust(batch);
        } catch (RuntimeException e) {
            if (e instanceof QuotaStoreException failure && failure.outage()) {
                returns.addAll(queued); // the breaker did not call the store: sent again once it answers
                return;
            }
            // the store may have applied it: never sent twice, so the tokens are lost until the buckets refill
            lost.add(tokens);
            tell(TokenLeasing.Event.LOST, perPolicy);
            if (lostWarnings.offer().write()) {
                log.warn("could not give back {} leased tokens of {} buckets ({}); they come back as the buckets refill",
                        tokens, batch.size(), e.toString());
            }
            return;
        }
        returned.add(tokens);
        tell(TokenLeasing.Event.RETURNED, perPolicy);
    }

    private void tell(TokenLeasing.Event event, Map<String, Long> perPolicy) {
        for (Map.Entry<String, Long> entry : perPolicy.entrySet()) {
            listener.onLeasedTokens(event, entry.getKey(), entry.getValue());
        }
    }

    private long nanos() {
        Instant now = clock.instant();
        return now.getEpochSecond() * SECOND + now.getNano();
    }
}
