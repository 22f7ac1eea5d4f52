package dev.quota.core.internal;

import dev.quota.core.Limit;
import dev.quota.core.spi.BucketMath;
import dev.quota.core.spi.BucketMath.Outcome;
import dev.quota.core.spi.BucketMath.Step;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ChargeRule;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.LeaseHolder;
import dev.quota.core.spi.Take;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.BucketState;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TokensInheritanceStrategy;
import io.github.bucket4j.VerboseResult;
import io.github.bucket4j.distributed.remote.CommandResult;
import io.github.bucket4j.distributed.remote.MutableBucketEntry;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import io.github.bucket4j.distributed.remote.RemoteCommand;
import io.github.bucket4j.distributed.remote.RemoteVerboseResult;
import io.github.bucket4j.distributed.remote.commands.AddTokensCommand;
import io.github.bucket4j.distributed.remote.commands.ConsumeIgnoringRateLimitsCommand;
import io.github.bucket4j.distributed.remote.commands.CreateInitialStateWithVersionOrReplaceConfigurationAndExecuteCommand;
import io.github.bucket4j.distributed.remote.commands.GetAvailableTokensCommand;
import io.github.bucket4j.distributed.remote.commands.TryConsumeAndReturnRemainingTokensCommand;
import io.github.bucket4j.distributed.remote.commands.VerboseCommand;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The one arithmetic of bucket states, behind {@link BucketMath} (what a store author calls) and
 * the stores' allocation-saving calls: Bucket4j's own commands, so every store computes exactly
 * what a Bucket4j proxy manager would: a missing bucket is created full, a lower config version is
 * replaced keeping usage ({@link TokensInheritanceStrategy#ADDITIVE}), refill and waits are
 * Bucket4j's.
 *
 * <p>Two speeds, one arithmetic. The reference is Bucket4j's commands ({@code ...ByCommand}); a
 * new bucket and an older config version always go through them. A bucket that exists at the
 * spec's config version or a newer one (the common case) is computed with the state arithmetic
 * those commands run (refill, consume, the waits), called directly: the same figures and states,
 * without a command, probe, verbose result and diagnostics copy per bucket. That they are the
 * same is checked over random specs, states and takes by {@code BucketArithmeticTest}, which
 * compares every answer and every stored byte both ways; the allocation this saves is what the
 * bench's allocation scenario ({@code quota-bench}, scenario 6) measures.
 *
 * <p>Which states change: {@link #consume}, {@link #peek}, {@link #addTokens},
 * {@link #releaseLease} and {@link #decide} never change a state they are given (they work on
 * copies, and answer new states). {@link #decideOwned} is the one exception, named for it: it
 * takes states the caller gives up and changes them in place.
 */
public final class BucketArithmetic {

    private BucketArithmetic() {
    }

    /**
     * Takes {@code tokens} from the bucket {@code before} (null: it does not exist yet) at {@code nowNanos};
     * from a lease set, holds that many free slots, and the result names the lease. Never changes
     * {@code before}.
     */
    public static Step consume(@Nullable RemoteBucketState before, BucketSpec spec, long tokens, long nowNanos) {
        return consume(before, spec, tokens, LeaseHolder.NONE, nowNanos);
    }

    /**
     * {@link #consume(RemoteBucketState, BucketSpec, long, long)} by {@code holder}: from a lease
     * set, the slots of instances it knows dead are freed first and the slots taken record its tag,
     * in the one state written (a refused take writes nothing: the dead holders' slots count as
     * free again at the next take). Other buckets ignore the holder.
     */
    public static Step consume(@Nullable RemoteBucketState before, BucketSpec spec, long tokens, LeaseHolder holder,
                               long nowNanos) {
        if (spec.leases()) {
            LeaseSlots slots = LeaseSlots.of(before, spec, nowNanos);
            slots.freeHeldByDead(holder);
            long free = slots.free();
            long capacity = spec.limits().get(0).capacity();
            if (free < tokens) {
                long wait = tokens > capacity ? Long.MAX_VALUE : slots.nanosToFirstFree(nowNanos);
                return new Step(ConsumeResult.notTaken(new long[] {Math.min(free, capacity)}, wait,
                        slots.nanosToAllFree(nowNanos)), null);
            }
            long lease = slots.take(tokens, holder.tag(), nowNanos);
            return new Step(ConsumeResult.taken(new long[] {Math.min(free - tokens, capacity)}, 0,
                    slots.nanosToAllFree(nowNanos), lease, 0), slots.state());
        }
        if (before == null || !current(before, spec)) {
            return consumeByCommand(before, spec, tokens, nowNanos);
        }
        RemoteBucketState state = before.copy();
        ConsumeResult result = consumeCurrent(state, spec, tokens, nowNanos);
        return new Step(result, result.tokensTaken() ? state : null);
    }

    /**
     * {@link #consume}'s answer, its state with the tokens taken put in {@code afters[i]} (null when
     * they were not): for a consume of several buckets, without a step per bucket.
     */
    private static ConsumeResult consumeInto(@Nullable RemoteBucketState before, Take take, long nowNanos,
                                             @Nullable RemoteBucketState[] afters, int i) {
        BucketSpec spec = take.spec();
        long tokens = take.tokens();
        if (spec.leases() || before == null || !current(before, spec)) {
            Step step = consume(before, spec, tokens, take.holder(), nowNanos);
            afters[i] = step.after();
            return step.result();
        }
        RemoteBucketState state = before.copy();
        ConsumeResult result = consumeCurrent(state, spec, tokens, nowNanos);
        afters[i] = result.tokensTaken() ? state : null;
        return result;
    }

    /**
     * Takes {@code tokens} from {@code state}, a copy of a bucket at {@code spec}'s config version
     * or a newer one, changed in place when they are there: Bucket4j's
     * TryConsumeAndReturnRemainingTokensCommand without the command, probe and verbose-result
     * objects around it.
     */
    static ConsumeResult consumeCurrent(RemoteBucketState state, BucketSpec spec, long tokens,
                                                long nowNanos) {
        state.refillAllBandwidth(nowNanos);
        boolean consumed = tokens <= state.getAvailableTokens();
        long wait = 0;
        if (consumed) {
            state.consume(tokens);
        } else {
            wait = Math.max(1, state.calculateDelayNanosAfterWillBePossibleToConsume(tokens, nowNanos, true));
        }
        long[] remaining = inSpecOrder(state, available(state), spec);
        long toFull = state.calculateFullRefillingTime(nowNanos);
        return consumed ? ConsumeResult.taken(remaining, wait, toFull) : ConsumeResult.notTaken(remaining, wait, toFull);
    }

    /** {@link #consume} through Bucket4j's commands: what it does for a new bucket or an older config version. */
    static Step consumeByCommand(@Nullable RemoteBucketState before, BucketSpec spec, long tokens, long nowNanos) {
        MutableBucketEntry entry = entry(before);
        RemoteVerboseResult<ConsumptionProbe> verbose = run(entry, spec,
                VerboseCommand.from(new TryConsumeAndReturnRemainingTokensCommand(tokens)), nowNanos);
        ConsumptionProbe probe = verbose.getValue();
        VerboseResult.Diagnostics diagnostics = verbose.asLocal().getDiagnostics();
        long[] remaining = inSpecOrder(entry.get(), diagnostics.getAvailableTokensPerEachBandwidth(), spec);
        if (probe.isConsumed()) {
            return new Step(ConsumeResult.taken(remaining, 0, diagnostics.calculateFullRefillingTime()), entry.get());
        }
        long wait = Math.max(1, probe.getNanosToWaitForRefill());
        return new Step(ConsumeResult.notTaken(remaining, wait, diagnostics.calculateFullRefillingTime()), null);
    }

    /**
     * The bucket as it stands at {@code nowNanos}, without taking anything. For a lease set the
     * remaining tokens are its free slots, and {@code nanosToWait} is the time until the oldest
     * held lease ends (0 when none is held): what an operator's standing shows.
     */
    public static ConsumeResult peek(@Nullable RemoteBucketState state, BucketSpec spec, long nowNanos) {
        if (spec.leases()) {
            LeaseSlots slots = LeaseSlots.of(state, spec, nowNanos);
            return ConsumeResult.taken(new long[] {Math.min(slots.free(), spec.limits().get(0).capacity())},
                    slots.nanosToOldestEnd(nowNanos), slots.nanosToAllFree(nowNanos));
        }
        if (state == null || !current(state, spec)) {
            return peekByCommand(state, spec, nowNanos);
        }
        RemoteBucketState refilled = state.copy();
        refilled.refillAllBandwidth(nowNanos);
        return ConsumeResult.taken(inSpecOrder(refilled, available(refilled), spec), 0,
                refilled.calculateFullRefillingTime(nowNanos));
    }

    /** {@link #peek} through Bucket4j's commands. */
    static ConsumeResult peekByCommand(@Nullable RemoteBucketState state, BucketSpec spec, long nowNanos) {
        MutableBucketEntry entry = entry(state);
        RemoteVerboseResult<Long> verbose = run(entry, spec, VerboseCommand.from(new GetAvailableTokensCommand()),
                nowNanos);
        VerboseResult.Diagnostics diagnostics = verbose.asLocal().getDiagnostics();
        return ConsumeResult.taken(inSpecOrder(entry.get(), diagnostics.getAvailableTokensPerEachBandwidth(), spec),
                0, diagnostics.calculateFullRefillingTime());
    }

    /**
     * The bucket with {@code tokens} given back to every limit, never above capacity; a negative
     * {@code tokens} takes {@code -tokens} from every limit whatever it holds, as Bucket4j's
     * consume-ignoring-rate-limits does: a limit that lacks them goes below zero, a debt the refill
     * pays before the next request is admitted (capacity 10, 3 left, {@code -5}: the limit holds
     * -2, and a request of 1 waits for 3 tokens). Zero leaves the bucket as it is.
     *
     * @throws IllegalArgumentException if {@code spec} is a lease set (a lease is given back by
     *                                  {@link #releaseLease})
     * @throws IllegalStateException    if the debt could never be paid (a refill overflow)
     */
    public static RemoteBucketState addTokens(@Nullable RemoteBucketState state, BucketSpec spec, long tokens,
                                              long nowNanos) {
        if (spec.leases()) {
            throw new IllegalArgumentException("a lease set holds leases, not tokens: give a lease back with"
                    + " releaseLease");
        }
        if (state == null || !current(state, spec)) {
            return addTokensByCommand(state, spec, tokens, nowNanos);
        }
        // Bucket4j's AddTokensCommand and ConsumeIgnoringRateLimitsCommand, on a copy
        RemoteBucketState after = state.copy();
        after.refillAllBandwidth(nowNanos);
        if (tokens >= 0) {
            after.addTokens(tokens);
        } else {
            if (after.calculateDelayNanosAfterWillBePossibleToConsume(-tokens, nowNanos, false) == Long.MAX_VALUE) {
                throw unpayable(tokens);
            }
            after.consume(-tokens);
        }
        return after;
    }

    /** {@link #addTokens} through Bucket4j's commands. */
    static RemoteBucketState addTokensByCommand(@Nullable RemoteBucketState state, BucketSpec spec, long tokens,
                                               long nowNanos) {
        MutableBucketEntry entry = entry(state);
        if (tokens >= 0) {
            run(entry, spec, new AddTokensCommand(tokens), nowNanos);
        } else {
            long penalty = run(entry, spec, new ConsumeIgnoringRateLimitsCommand(-tokens), nowNanos);
            if (penalty == Long.MAX_VALUE) {
                throw unpayable(tokens);
            }
        }
        return entry.get();
    }

    /**
     * The lease set with the lease {@code lease} ({@link ConsumeResult#lease()}) given back: its
     * slot free again, unless the lease has ended already (then its slot may hold someone else's
     * lease, left alone).
     *
     * @throws IllegalArgumentException if {@code spec} is not a lease set
     */
    public static RemoteBucketState releaseLease(@Nullable RemoteBucketState state, BucketSpec spec, long lease,
                                                 long nowNanos) {
        if (!spec.leases()) {
            throw new IllegalArgumentException("only a lease set has leases to give back");
        }
        LeaseSlots slots = LeaseSlots.of(state, spec, nowNanos);
        slots.release(lease);
        return slots.state();
    }

    /**
     * Decides a consume of several buckets (see {@link dev.quota.core.spi.QuotaStore}): what each
     * bucket gives is {@link ChargeRule}'s answer. A take left untaken reports its bucket as it
     * stands. Never changes a state it is given.
     *
     * @param before the state of each take's bucket, null where it does not exist
     */
    public static Outcome decide(List<Take> takes, @Nullable RemoteBucketState[] before, long nowNanos) {
        int n = takes.size();
        // each bucket's own answer and state, gathered where the outcome keeps them: the results in
        // the thread's array, listed as they are; the states in the writes
        RemoteBucketState[] writes = new RemoteBucketState[n];
        Object[] results = ListsOf.gather(n);
        try {
            boolean all = true;
            for (int i = 0; i < n; i++) {
                Take take = takes.get(i);
                results[i] = consumeInto(before[i], take, nowNanos, writes, i);
                all &= writes[i] != null;
            }
            if (all) {
                // every bucket had its tokens: the rule takes each take's own (admitted, shadows too),
                // so each bucket's answer and write are its own, without the rule's steps, arrays and predicates
                for (int i = 0; i < n; i++) {
                    // the writes are this call's own copies: the extra is taken from them in place
                    results[i] = withExtra(takes.get(i), Objects.requireNonNull(writes[i], "all taken"),
                            (ConsumeResult) results[i], nowNanos);
                }
                return new Outcome(ListsOf.first(results, n), writes);
            }
            Step[] steps = new Step[n];
            for (int i = 0; i < n; i++) {
                steps[i] = new Step((ConsumeResult) results[i], writes[i]);
                results[i] = null;
                writes[i] = null;
            }
            Step[] charged = new Step[n]; // the refusal tokens' step, computed only when the rule asks
            long[] taken = ChargeRule.taken(takes, i -> steps[i].after() != null, i -> {
                Take take = takes.get(i);
                charged[i] = take.refusalTokens() == take.tokens() ? steps[i]
                        : consume(before[i], take.spec(), take.refusalTokens(), take.holder(), nowNanos);
                return charged[i].after() != null;
            });
            boolean admitted = ChargeRule.admitted(takes, i -> steps[i].after() != null);
            // each take's answer and write by what the rule took from its bucket: steps[i] took the
            // take's tokens, charged[i] its refusal tokens (null when not computed)
            for (int i = 0; i < n; i++) {
                Take take = takes.get(i);
                Step step = steps[i];
                if (taken[i] == take.tokens()) {
                    RemoteBucketState after = step.after();
                    writes[i] = after;
                    // a step's state is a copy this decision made: the extra is taken from it in place
                    results[i] = admitted && after != null ? withExtra(take, after, step.result(), nowNanos)
                            : step.result();
                } else if (taken[i] > 0) {
                    Step paid = Objects.requireNonNull(charged[i], "refusal tokens taken without being asked for");
                    writes[i] = paid.after();
                    results[i] = step.after() != null ? paid.result() : charged(paid, take, nowNanos);
                } else {
                    // nothing taken: one that had enough is reported as it stands, else as it refused
                    results[i] = step.after() != null ? untaken(peek(before[i], take.spec(), nowNanos))
                            : step.result();
                }
            }
            return new Outcome(ListsOf.first(results, n), writes);
        } finally {
            ListsOf.giveBack(results);
        }
    }

    /**
     * {@link #decide} on states the caller gives up, each held by nothing else (a state a store
     * parsed for this decision, or its own copy of one it shares), without a copy of each and
     * without an outcome object: what a store whose states are bytes calls per decision.
     *
     * <p>When every bucket is at its spec's config version (or newer) and holds its take's tokens,
     * the rule takes each take's own tokens (as in {@link #decide}'s admitted case): they are taken
     * from the states in place, the same arithmetic {@link #decide} runs on its copies. Otherwise
     * the answer is {@link #decide}'s itself, on the states at most refilled to {@code nowNanos}
     * (a refill to the same time again changes nothing, so the answer is the same as on the states
     * given). Either way, the states to write are put back in {@code states}.
     *
     * @param states in: the state of each take's bucket, null where it does not exist, the caller's
     *               to give up; out: the state to write for each take, null where the bucket is left
     *               as it is
     * @return one answer per take, in order
     */
    public static List<ConsumeResult> decideOwned(List<Take> takes, @Nullable RemoteBucketState[] states,
                                                  long nowNanos) {
        int n = takes.size();
        if (!allHoldTheirTokens(takes, states, nowNanos)) {
            Outcome outcome = decide(takes, states, nowNanos);
            System.arraycopy(outcome.writes(), 0, states, 0, n);
            return outcome.results();
        }
        Object[] results = ListsOf.gather(n);
        try {
            for (int i = 0; i < n; i++) {
                Take take = takes.get(i);
                RemoteBucketState state = Objects.requireNonNull(states[i], "checked above");
                results[i] = withExtra(take, state, consumeCurrent(state, take.spec(), take.tokens(), nowNanos),
                        nowNanos); // refilled already
            }
            return ListsOf.first(results, n);
        } finally {
            ListsOf.giveBack(results);
        }
    }

    /**
     * Whether every take's bucket exists at its spec's config version or a newer one, is not a
     * lease set, and holds the take's tokens at {@code nowNanos}: the states refilled to then in
     * place when it gets that far (which changes no answer at that time).
     */
    private static boolean allHoldTheirTokens(List<Take> takes, @Nullable RemoteBucketState[] states,
                                              long nowNanos) {
        int n = takes.size();
        for (int i = 0; i < n; i++) {
            RemoteBucketState state = states[i];
            Take take = takes.get(i);
            // tokens available before the refill are there after it (a refill only adds)
            if (state == null || take.spec().leases() || !current(state, take.spec())
                    || take.tokens() > state.getAvailableTokens()) {
                return false;
            }
        }
        for (int i = 0; i < n; i++) {
            RemoteBucketState state = Objects.requireNonNull(states[i], "checked above");
            state.refillAllBandwidth(nowNanos);
            if (takes.get(i).tokens() > state.getAvailableTokens()) {
                return false;
            }
        }
        return true;
    }

    /**
     * The answer for a take charged its refusal tokens by a bucket that lacked the take's tokens:
     * those tokens taken, and the wait for the take's tokens from the state after them.
     */
    private static ConsumeResult charged(Step paid, Take take, long nowNanos) {
        RemoteBucketState after = Objects.requireNonNull(paid.after(), "a charge that took nothing");
        long wait = consume(after, take.spec(), take.tokens(), nowNanos).result().nanosToWait();
        ConsumeResult result = paid.result();
        return ConsumeResult.taken(result.remaining(), Math.max(1, wait), result.nanosToFull());
    }

    /**
     * {@code result}, the answer of an admitted take whose tokens {@code after} (refilled to
     * {@code nowNanos}, this decision's own) no longer holds, with the take's {@link Take#extra()}
     * taken from {@code after} in place, as many as {@link ChargeRule#extra} says it gives.
     */
    private static ConsumeResult withExtra(Take take, RemoteBucketState after, ConsumeResult result, long nowNanos) {
        if (take.extra() == 0) {
            return result;
        }
        long extra = ChargeRule.extra(take, after.getAvailableTokens());
        if (extra == 0) {
            return result;
        }
        after.consume(extra);
        return ConsumeResult.taken(inSpecOrder(after, available(after), take.spec()), 0,
                after.calculateFullRefillingTime(nowNanos), result.lease(), extra);
    }

    private static ConsumeResult untaken(ConsumeResult standing) {
        return ConsumeResult.notTaken(standing.remaining(), 0, standing.nanosToFull());
    }

    private static IllegalStateException unpayable(long tokens) {
        return new IllegalStateException("a debt of " + -tokens + " tokens could never be paid");
    }

    /**
     * Whether {@code state} carries {@code spec}'s config version or a newer one: then
     * Bucket4j's commands would neither create it nor replace its configuration, only run on it.
     */
    private static boolean current(RemoteBucketState state, BucketSpec spec) {
        Long version = state.getConfigurationVersion();
        return version != null && version >= spec.version();
    }

    /** The tokens of each bandwidth of {@code state}, in its order: what Bucket4j's diagnostics report. */
    private static long[] available(RemoteBucketState state) {
        BucketState bucket = state.getState();
        long[] available = new long[state.getConfiguration().getBandwidths().length];
        for (int i = 0; i < available.length; i++) {
            available[i] = bucket.getCurrentSize(i);
        }
        return available;
    }

    private static MutableBucketEntry entry(@Nullable RemoteBucketState state) {
        return state == null ? new MutableBucketEntry((byte[]) null) : new MutableBucketEntry(state.copy());
    }

    private static <T> T run(MutableBucketEntry entry, BucketSpec spec, RemoteCommand<T> command, long nowNanos) {
        BucketConfiguration configuration = Bandwidths.configuration(spec);
        CommandResult<T> result = new CreateInitialStateWithVersionOrReplaceConfigurationAndExecuteCommand<>(
                configuration, command, spec.version(), TokensInheritanceStrategy.ADDITIVE).execute(entry, nowNanos);
        if (result.isError()) {
            throw new IllegalStateException("bucket command failed with result type " + result.getResultTypeId());
        }
        return result.getData();
    }

    /**
     * The tokens of each limit in {@code spec} order. They are the state's bandwidths in order,
     * unless the stored bucket carries a newer config than {@code spec} (another instance reloaded
     * first): then limits are matched by name, and a limit the stored config lacks counts as full.
     */
    static long[] inSpecOrder(RemoteBucketState state, long[] available, BucketSpec spec) {
        Bandwidth[] bandwidths = state.getConfiguration().getBandwidths();
        List<Limit> limits = spec.limits();
        if (bandwidths.length == limits.size()) {
            boolean same = true;
            for (int i = 0; i < bandwidths.length && same; i++) {
                same = limits.get(i).name().equals(bandwidths[i].getId());
            }
            if (same) {
                return available;
            }
        }
        long[] out = new long[limits.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = limits.get(i).capacity();
            for (int b = 0; b < bandwidths.length; b++) {
                if (limits.get(i).name().equals(bandwidths[b].getId())) {
                    out[i] = Math.min(available[b], limits.get(i).capacity());
                    break;
                }
            }
        }
        return out;
    }
}
