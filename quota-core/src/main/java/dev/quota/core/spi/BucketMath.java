package dev.quota.core.spi;

import dev.quota.core.Limit;
import dev.quota.core.internal.Bandwidths;
import dev.quota.core.internal.ListsOf;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.BucketState;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TokensInheritanceStrategy;
import io.github.bucket4j.VerboseResult;
import io.github.bucket4j.distributed.proxy.ClientSideConfig;
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
import io.github.bucket4j.distributed.versioning.Version;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Bucket4j's own commands, run on bucket states held by a store, so every store computes exactly
 * what a Bucket4j proxy manager would: a missing bucket is created full, a lower config version is
 * replaced keeping usage ({@link TokensInheritanceStrategy#ADDITIVE}), refill and waits are
 * Bucket4j's. The stores only decide where the states live and how they are swapped atomically.
 *
 * <p>A bucket that exists at the spec's config version (or a newer one), the common case, is
 * computed with the state arithmetic those commands run (refill, consume, the waits), called
 * directly on a copy: the same figures and states, without a command, probe, verbose result and
 * diagnostics copy per bucket. A new bucket and an older version go through the commands.
 *
 * <p>Never mutates a state it is given; every result state is a new object.
 */
public final class BucketMath {

    /** The serialization format of stored states: Bucket4j's default for its proxy managers. */
    public static final Version WIRE_VERSION = ClientSideConfig.getDefault().getBackwardCompatibilityVersion();

    private BucketMath() {
    }

    /**
     * One bucket after a consume attempt.
     *
     * @param result the store's answer for this bucket alone
     * @param after  the state with the tokens taken, or null when they were not
     */
    public record Step(ConsumeResult result, @Nullable RemoteBucketState after) {
    }

    /**
     * What a consume of several buckets does: the answer per take, and the states to write (null
     * where a bucket is left as it is).
     */
    public record Outcome(List<ConsumeResult> results, @Nullable RemoteBucketState[] writes) {
    }

    /**
     * Takes {@code tokens} from the bucket {@code before} (null: it does not exist yet) at {@code nowNanos};
     * from a lease set, holds that many free slots, and the result names the lease.
     */
    public static Step consume(@Nullable RemoteBucketState before, BucketSpec spec, long tokens, long nowNanos) {
        if (spec.leases()) {
            LeaseSlots slots = LeaseSlots.of(before, spec, nowNanos);
            long free = slots.free();
            long capacity = spec.limits().get(0).capacity();
            if (free < tokens) {
                long wait = tokens > capacity ? Long.MAX_VALUE : slots.nanosToFirstFree(nowNanos);
                return new Step(new ConsumeResult(false, new long[] {Math.min(free, capacity)}, wait,
                        slots.nanosToAllFree(nowNanos)), null);
            }
            long lease = slots.take(tokens, nowNanos);
            return new Step(new ConsumeResult(true, new long[] {Math.min(free - tokens, capacity)}, 0,
                    slots.nanosToAllFree(nowNanos), lease), slots.state());
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
    private static ConsumeResult consumeInto(@Nullable RemoteBucketState before, BucketSpec spec, long tokens,
                                             long nowNanos, @Nullable RemoteBucketState[] afters, int i) {
        if (spec.leases() || before == null || !current(before, spec)) {
            Step step = consume(before, spec, tokens, nowNanos);
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
    private static ConsumeResult consumeCurrent(RemoteBucketState state, BucketSpec spec, long tokens,
                                                long nowNanos) {
        state.refillAllBandwidth(nowNanos);
        boolean consumed = tokens <= state.getAvailableTokens();
        long wait = 0;
        if (consumed) {
            state.consume(tokens);
        } else {
            wait = Math.max(1, state.calculateDelayNanosAfterWillBePossibleToConsume(tokens, nowNanos, true));
        }
        return new ConsumeResult(consumed, inSpecOrder(state, available(state), spec), wait,
                state.calculateFullRefillingTime(nowNanos));
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
            return new Step(new ConsumeResult(true, remaining, 0, diagnostics.calculateFullRefillingTime()), entry.get());
        }
        long wait = Math.max(1, probe.getNanosToWaitForRefill());
        return new Step(new ConsumeResult(false, remaining, wait, diagnostics.calculateFullRefillingTime()), null);
    }

    /**
     * The bucket as it stands at {@code nowNanos}, without taking anything. For a lease set the
     * remaining tokens are its free slots, and {@code nanosToWait} is the time until the oldest
     * held lease ends (0 when none is held): what an operator's standing shows.
     */
    public static ConsumeResult peek(@Nullable RemoteBucketState state, BucketSpec spec, long nowNanos) {
        if (spec.leases()) {
            LeaseSlots slots = LeaseSlots.of(state, spec, nowNanos);
            return new ConsumeResult(true, new long[] {Math.min(slots.free(), spec.limits().get(0).capacity())},
                    slots.nanosToOldestEnd(nowNanos), slots.nanosToAllFree(nowNanos));
        }
        if (state == null || !current(state, spec)) {
            return peekByCommand(state, spec, nowNanos);
        }
        RemoteBucketState refilled = state.copy();
        refilled.refillAllBandwidth(nowNanos);
        return new ConsumeResult(true, inSpecOrder(refilled, available(refilled), spec), 0,
                refilled.calculateFullRefillingTime(nowNanos));
    }

    /** {@link #peek} through Bucket4j's commands. */
    static ConsumeResult peekByCommand(@Nullable RemoteBucketState state, BucketSpec spec, long nowNanos) {
        MutableBucketEntry entry = entry(state);
        RemoteVerboseResult<Long> verbose = run(entry, spec, VerboseCommand.from(new GetAvailableTokensCommand()),
                nowNanos);
        VerboseResult.Diagnostics diagnostics = verbose.asLocal().getDiagnostics();
        return new ConsumeResult(true, inSpecOrder(entry.get(), diagnostics.getAvailableTokensPerEachBandwidth(), spec),
                0, diagnostics.calculateFullRefillingTime());
    }

    /**
     * The bucket with {@code tokens} given back to every limit, never above capacity; a negative
     * {@code tokens} takes {@code -tokens} from every limit whatever it holds, as Bucket4j's
     * consume-ignoring-rate-limits does: a limit that lacks them goes below zero, a debt the refill
     * pays before the next request is admitted (capacity 10, 3 left, {@code -5}: the limit holds
     * -2, and a request of 1 waits for 3 tokens). Zero leaves the bucket as it is. For a lease set,
     * the lease whose deadline is {@code tokens} is given back (nothing when it has ended).
     *
     * @throws IllegalStateException if the debt could never be paid (a refill overflow)
     */
    public static RemoteBucketState addTokens(@Nullable RemoteBucketState state, BucketSpec spec, long tokens,
                                              long nowNanos) {
        if (spec.leases()) {
            LeaseSlots slots = LeaseSlots.of(state, spec, nowNanos);
            slots.release(tokens);
            return slots.state();
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
     * Decides a consume of several buckets (see {@link dev.quota.core.spi.QuotaStore}): what each
     * bucket gives is {@link ChargeRule}'s answer. A take left untaken reports its bucket as it stands.
     *
     * @param before the state of each take's bucket, null where it does not exist
     */
    public static Outcome decide(List<Take> takes, @Nullable RemoteBucketState[] before, long nowNanos) {
        int n = takes.size();
        if (n == 1) {
            return decideAlone(takes.get(0), before[0], nowNanos);
        }
        // each bucket's own answer and state, gathered where the outcome keeps them: the results in
        // the thread's array, listed as they are; the states in the writes
        RemoteBucketState[] writes = new RemoteBucketState[n];
        Object[] results = ListsOf.fits(n) ? ListsOf.scratch() : new Object[n];
        boolean all = true;
        for (int i = 0; i < n; i++) {
            Take take = takes.get(i);
            results[i] = consumeInto(before[i], take.spec(), take.tokens(), nowNanos, writes, i);
            all &= writes[i] != null;
        }
        if (all) {
            // every bucket had its tokens: the rule takes each take's own (admitted, shadows too),
            // so each bucket's answer and write are its own, without the rule's steps, arrays and predicates
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
                    : consume(before[i], take.spec(), take.refusalTokens(), nowNanos);
            return charged[i].after() != null;
        });
        for (int i = 0; i < n; i++) {
            results[i] = apply(takes.get(i), steps[i], charged[i], taken[i], before[i], nowNanos, writes, i);
        }
        return new Outcome(ListsOf.first(results, n), writes);
    }

    /**
     * {@link #decide(List, RemoteBucketState[], long)} on the states themselves, which the caller
     * gives up (each held by nothing else: a state the store parsed for this decision, or its own
     * copy of one it shares): when every bucket holds its take's tokens, they are taken from the
     * states in place, and the states are the writes; otherwise the answer is
     * {@link #decide(List, RemoteBucketState[], long)}'s, on states at most refilled to
     * {@code nowNanos} (a refill at the same time again changes nothing), which the caller must
     * not write.
     *
     * @param states the state of each take's bucket, null where it does not exist; the caller's
     */
    public static Outcome decideInPlace(List<Take> takes, @Nullable RemoteBucketState[] states, long nowNanos) {
        int n = takes.size();
        for (int i = 0; i < n; i++) {
            RemoteBucketState state = states[i];
            Take take = takes.get(i);
            // tokens available before the refill are there after it (a refill only adds)
            if (state == null || take.spec().leases() || !current(state, take.spec())
                    || take.tokens() > state.getAvailableTokens()) {
                return decide(takes, states, nowNanos);
            }
        }
        for (int i = 0; i < n; i++) {
            RemoteBucketState state = Objects.requireNonNull(states[i], "checked above");
            state.refillAllBandwidth(nowNanos);
            if (takes.get(i).tokens() > state.getAvailableTokens()) {
                return decide(takes, states, nowNanos); // refilled to now only: computed again on copies
            }
        }
        // every bucket has its tokens: the rule takes each take's own (decide's "all" case)
        RemoteBucketState[] writes = new RemoteBucketState[n];
        Object[] results = ListsOf.fits(n) ? ListsOf.scratch() : new Object[n];
        for (int i = 0; i < n; i++) {
            Take take = takes.get(i);
            RemoteBucketState state = Objects.requireNonNull(states[i], "checked above");
            results[i] = consumeCurrent(state, take.spec(), take.tokens(), nowNanos); // its refill: done above
            writes[i] = state;
        }
        return new Outcome(ListsOf.first(results, n), writes);
    }

    /** {@link #decide} of one take, as an {@link Outcome}. */
    private static Outcome decideAlone(Take take, @Nullable RemoteBucketState before, long nowNanos) {
        Step step = decide(take, before, nowNanos);
        return new Outcome(List.of(step.result()), new RemoteBucketState[] {step.after()});
    }

    /**
     * {@link #decide(Take, RemoteBucketState, long)} on {@code state} itself, which the caller gives
     * up: a state parsed for this decision alone (a store that keeps a bucket as its bytes parses
     * it to decide), so the tokens are taken without a copy of it first (about 100 bytes a
     * decision). The same answer and the same state written: when the bucket holds the take's
     * tokens, {@code state} with them taken is the step's write; otherwise {@code state} is at
     * most refilled to {@code nowNanos} (a refill at the same time again changes nothing, so the
     * answer is {@link #decide(Take, RemoteBucketState, long)}'s on it), and the caller must not
     * write it.
     *
     * @param state the state of the take's bucket, null where it does not exist; the caller's to
     *              give up, held by nothing else
     */
    public static Step decideInPlace(Take take, @Nullable RemoteBucketState state, long nowNanos) {
        RemoteBucketState[] write = new RemoteBucketState[1];
        ConsumeResult result = decideInPlace(take, state, nowNanos, write, 0);
        return new Step(result, write[0]);
    }

    /**
     * {@link #decideInPlace(Take, RemoteBucketState, long)} without a step: the answer, and the
     * state to write put in {@code writes[i]} (null: leave the bucket as it is), so that a store's
     * one-limit decision, computed in an array the store keeps, makes no step object.
     *
     * @param state  the state of the take's bucket, null where it does not exist; the caller's to
     *               give up, held by nothing else
     * @param writes where the state to write goes, at {@code i}
     */
    public static ConsumeResult decideInPlace(Take take, @Nullable RemoteBucketState state, long nowNanos,
                                              @Nullable RemoteBucketState[] writes, int i) {
        BucketSpec spec = take.spec();
        // a refusal, a lease set, a new bucket or an older version: as decide does, on a copy;
        // tokens available before the refill are there after it (a refill only adds)
        if (state != null && !spec.leases() && current(state, spec) && take.tokens() <= state.getAvailableTokens()) {
            ConsumeResult result = consumeCurrent(state, spec, take.tokens(), nowNanos);
            if (result.tokensTaken()) {
                // taken: what ChargeRule.takenAlone gives an admitted take, as decide answers it
                writes[i] = state;
                return result;
            }
            // refilled to now only: computed again on a copy
        }
        Step step = decide(take, state, nowNanos);
        writes[i] = step.after();
        return step.result();
    }

    /**
     * {@link #decide(List, RemoteBucketState[], long)} of a consume of the one take {@code take}
     * (a one-limit decision's): the store's answer for it, and the state to write (null: leave the
     * bucket as it is). The same steps and rule ({@link ChargeRule#takenAlone}), without the arrays
     * and predicates of several takes.
     *
     * @param before the state of the take's bucket, null where it does not exist
     */
    public static Step decide(Take take, @Nullable RemoteBucketState before, long nowNanos) {
        Step step = consume(before, take.spec(), take.tokens(), nowNanos);
        boolean has = step.after() != null;
        Step paid = null; // the refusal tokens' step, computed only when the rule reads it
        if (!has && !take.shadow() && take.chargedOnRefusal()) {
            paid = take.refusalTokens() == take.tokens() ? step
                    : consume(before, take.spec(), take.refusalTokens(), nowNanos);
        }
        long taken = ChargeRule.takenAlone(take, has, paid != null && paid.after() != null);
        if (taken == take.tokens()) {
            return step; // the common case: the take's own step is the answer and the write
        }
        RemoteBucketState[] write = new RemoteBucketState[1];
        ConsumeResult result = apply(take, step, paid, taken, before, nowNanos, write, 0);
        return new Step(result, write[0]);
    }

    /**
     * The answer for one take of a consume that took {@code taken} tokens from its bucket
     * ({@link ChargeRule}), and its write into {@code writes[i]}: {@code step} took the take's
     * tokens, {@code paid} its refusal tokens (null when not computed).
     */
    private static ConsumeResult apply(Take take, Step step, @Nullable Step paid, long taken,
                                       @Nullable RemoteBucketState before, long nowNanos,
                                       @Nullable RemoteBucketState[] writes, int i) {
        if (taken == take.tokens()) {
            writes[i] = step.after();
            return step.result();
        }
        if (taken > 0) {
            Step charge = Objects.requireNonNull(paid, "refusal tokens taken without being asked for");
            writes[i] = charge.after();
            return step.after() != null ? charge.result() : charged(charge, take, nowNanos);
        }
        if (step.after() != null) {
            // had enough, but the consume took nothing from it: report it as it stands
            return untaken(peek(before, take.spec(), nowNanos));
        }
        return step.result();
    }

    /**
     * The answer for a take charged its refusal tokens by a bucket that lacked the take's tokens:
     * those tokens taken, and the wait for the take's tokens from the state after them.
     */
    public static ConsumeResult charged(Step paid, Take take, long nowNanos) {
        RemoteBucketState after = Objects.requireNonNull(paid.after(), "a charge that took nothing");
        long wait = consume(after, take.spec(), take.tokens(), nowNanos).result().nanosToWait();
        ConsumeResult result = paid.result();
        return new ConsumeResult(true, result.remaining(), Math.max(1, wait), result.nanosToFull());
    }

    /** @throws IllegalArgumentException if {@code takes} is empty or a key appears twice */
    public static void requireDistinctKeys(List<Take> takes) {
        if (takes.isEmpty()) {
            throw new IllegalArgumentException("a consume needs at least one take");
        }
        if (takes.size() == 1) {
            return;
        }
        if (takes.size() <= 8) {
            // a decision's handful of buckets: compared pairwise, without a set per consume
            for (int i = 1; i < takes.size(); i++) {
                String key = takes.get(i).key().value();
                for (int j = 0; j < i; j++) {
                    if (key.equals(takes.get(j).key().value())) {
                        throw new IllegalArgumentException("bucket " + takes.get(i).key() + " appears twice in one consume");
                    }
                }
            }
            return;
        }
        var seen = new HashSet<String>(takes.size() * 2);
        for (Take take : takes) {
            if (!seen.add(take.key().value())) {
                throw new IllegalArgumentException("bucket " + take.key() + " appears twice in one consume");
            }
        }
    }

    /** The stored form of a state: Bucket4j's, byte for byte, written into an array of its exact size. */
    public static byte[] serialize(RemoteBucketState state) {
        return StateWire.write(state);
    }

    /**
     * Writes the stored form of {@code state} (as {@link #serialize(RemoteBucketState)}) into
     * {@code into} from {@code offset}, a buffer the caller reuses: no array of the state's size is
     * made for it. Answers its length; when it does not fit, writes nothing and answers minus its
     * length (grow the buffer and call again).
     */
    public static int serialize(RemoteBucketState state, byte[] into, int offset) {
        return StateWire.write(state, into, offset);
    }

    /**
     * A state from its stored form. A state whose configuration bytes were seen before shares that
     * configuration object instead of parsing it again.
     *
     * @throws RuntimeException if the bytes are not a bucket state
     */
    public static RemoteBucketState deserialize(byte[] bytes) {
        return StateWire.read(bytes);
    }

    /**
     * A state from its stored form in the first {@code length} bytes of {@code bytes} (a scratch
     * buffer the caller reuses: no array of the state's size is made for it), as {@link #deserialize(byte[])}.
     *
     * @throws RuntimeException if the bytes are not a bucket state
     */
    public static RemoteBucketState deserialize(byte[] bytes, int length) {
        return StateWire.read(bytes, length);
    }

    private static ConsumeResult untaken(ConsumeResult standing) {
        return new ConsumeResult(false, standing.remaining(), 0, standing.nanosToFull());
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
