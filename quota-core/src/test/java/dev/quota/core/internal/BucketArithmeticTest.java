package dev.quota.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketMath;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.Take;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.BucketState;
import io.github.bucket4j.MathType;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import io.github.bucket4j.distributed.remote.RemoteStat;
import io.github.bucket4j.distributed.serialization.InternalSerializationHelper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * {@link BucketArithmetic} computes a bucket at its current config version with Bucket4j's state
 * arithmetic directly, and a new or older bucket with Bucket4j's commands: both must give the same
 * answers and the same stored bytes. Random specs (greedy and interval, one to three limits, one
 * token to billions, a nanosecond to a year), random states reached by random steps (consumes,
 * refusals, give-backs, debts past a whole bucket, config versions up and down, times from 0 to
 * past 2^62), each step computed both ways from the same state.
 */
class BucketArithmeticTest {

    private static final Duration[] PERIODS = {Duration.ofNanos(1), Duration.ofNanos(7), Duration.ofMillis(1),
            Duration.ofSeconds(1), Duration.ofMinutes(1), Duration.ofHours(1), Duration.ofDays(1),
            Duration.ofDays(365), Duration.ofSeconds(3, 123_456_789)};
    private static final String[] NAMES = {"burst", "hourly", "daily"};

    @Test
    void consumePeekAndAddTokens_answerAndStoreExactlyWhatBucket4jsCommandsDo() {
        Random random = new Random(19);
        int compared = 0;
        for (int run = 0; run < 2_000; run++) {
            long version = 1L + random.nextInt(3);
            BucketSpec spec = spec(random, version);
            long now = startTime(random);
            RemoteBucketState state = null;
            for (int step = 0; step < 60; step++) {
                now += timeStep(random, now);
                if (random.nextInt(12) == 0) {
                    // a reload: a newer version (the stored bucket takes it), or an older one (another
                    // instance reloaded first: the stored bucket keeps its newer limits)
                    version = Math.max(1, version + (random.nextInt(4) == 0 ? -1 : 1));
                    spec = spec(random, version);
                }
                state = compareStep(random, state, spec, now);
                compared++;
            }
        }
        assertThat(compared).isEqualTo(120_000);
    }

    @Test
    void theStoredForm_isBucket4jsByteForByte_andReadsBackToTheSameState() {
        Random random = new Random(23);
        for (int run = 0; run < 5_000; run++) {
            BucketSpec spec = spec(random, 1 + random.nextInt(5));
            long now = startTime(random);
            RemoteBucketState state = BucketArithmetic.consumeByCommand(null, spec, 1, now).after();
            for (int step = 0; step < 5 && state != null; step++) {
                now += timeStep(random, now);
                assertStoredFormExact(state);
                try {
                    state = BucketArithmetic.addTokensByCommand(state, spec, -random.nextInt(1_000), now);
                } catch (IllegalStateException e) {
                    break; // a debt that could never be paid (a year per token): nothing was written
                }
            }
        }
    }

    @Test
    void statesWrittenElsewhere_readAsBucket4jReadsThem() {
        // without a config version (the 7.0 format), ids of any characters or none, several bandwidths
        BucketConfiguration odd = BucketConfiguration.builder()
                .addLimit(b -> b.capacity(10).refillGreedy(10, Duration.ofSeconds(1)).id("\u00fc\u20ac\u0000x"))
                .addLimit(b -> b.capacity(100).refillIntervally(7, Duration.ofMinutes(1)))
                .build();
        for (Long version : new Long[] {null, 5L}) {
            RemoteBucketState state = new RemoteBucketState(
                    BucketState.createInitialState(odd, MathType.INTEGER_64_BITS, 1_000), new RemoteStat(3), version);
            assertStoredFormExact(state);
            assertStoredFormExact(state); // its configuration known now
        }
    }

    @Test
    void bytesThatAreNotAState_failAsBucket4jsReaderFails() {
        byte[] whole = BucketMath.serialize(Objects.requireNonNull(
                BucketArithmetic.consumeByCommand(null, spec(new Random(1), 1), 1, 0).after()));
        BucketMath.deserialize(whole); // its configuration known
        List<byte[]> broken = new ArrayList<>();
        broken.add(new byte[0]);
        broken.add(new byte[] {0, 0, 0, 9});
        for (int cut = 1; cut < whole.length; cut += 7) {
            broken.add(Arrays.copyOf(whole, cut));
        }
        for (byte[] bytes : broken) {
            Throwable bucket4j = catchThrowable(() -> InternalSerializationHelper.deserializeState(bytes));
            Throwable ours = catchThrowable(() -> BucketMath.deserialize(bytes));
            assertThat(bucket4j).isNotNull();
            assertThat(ours).hasSameClassAs(bucket4j).hasMessage(bucket4j.getMessage());
        }
    }

    /**
     * A consume of one take (the one-limit decision's) answers and writes for it what the consume
     * of several does for that take beside a shadow take that has its tokens (which changes nothing
     * for it): random buckets, takes past the capacity, refusal tokens none, one or all, enforced
     * and shadow.
     */
    @Test
    void decideOneTake_answersAndWritesWhatTheConsumeOfSeveralDoesForIt() {
        Random random = new Random(23);
        BucketSpec plenty = BucketSpec.of(List.of(new Limit("plenty", 1_000_000,
                Refill.greedy(1_000_000, Duration.ofSeconds(1)))), 1);
        int refused = 0;
        for (int run = 0; run < 2_000; run++) {
            BucketSpec spec = spec(random, 1);
            long now = startTime(random);
            RemoteBucketState state = null;
            for (int step = 0; step < 30; step++) {
                now += timeStep(random, now);
                long capacity = spec.limits().get(0).capacity();
                long tokens = random.nextInt(4) == 0 ? capacity + 1 : 1 + (long) (random.nextDouble() * capacity);
                boolean shadow = random.nextInt(5) == 0;
                long refusal = shadow ? 0 : switch (random.nextInt(3)) {
                    case 0 -> 0;
                    case 1 -> 1;
                    default -> tokens;
                };
                Take take = take(new BucketKey("one"), spec, tokens, refusal, shadow);
                BucketMath.Step alone = one(take, state, now);
                BucketMath.Outcome several = BucketMath.decide(List.of(take,
                        Take.shadow(new BucketKey("beside"), plenty, 1)), new RemoteBucketState[] {state, null}, now);
                assertThat(alone.result().tokensTaken()).isEqualTo(several.results().get(0).tokensTaken());
                assertThat(alone.result().remaining()).isEqualTo(several.results().get(0).remaining());
                assertThat(alone.result().nanosToWait()).isEqualTo(several.results().get(0).nanosToWait());
                assertThat(alone.result().nanosToFull()).isEqualTo(several.results().get(0).nanosToFull());
                RemoteBucketState written = several.writes()[0];
                assertThat(alone.after() == null ? null : BucketMath.serialize(alone.after()))
                        .isEqualTo(written == null ? null : BucketMath.serialize(written));
                refused += alone.after() == null ? 1 : 0;
                state = alone.after() != null ? alone.after() : state;
            }
        }
        assertThat(refused).isGreaterThan(1_000); // refusals and charged refusals were compared too
    }

    /**
     * A one-take consume on a state the caller gives up ({@link BucketArithmetic#decideOwned}, a
     * store's state parsed for the decision) answers and writes exactly what
     * {@link BucketMath#decide} does on the state it came from; a state it did not write decides
     * again as the original does (at most refilled to the same time), and an admitted one is the
     * write itself (no copy).
     */
    @Test
    void decideOwned_ofOneTake_answersAndWritesWhatDecideDoes_onTheStateItself() {
        Random random = new Random(29);
        int inPlace = 0;
        int refused = 0;
        for (int run = 0; run < 2_000; run++) {
            long version = 1L + random.nextInt(2);
            BucketSpec spec = spec(random, version);
            long now = startTime(random);
            RemoteBucketState state = null;
            for (int step = 0; step < 30; step++) {
                now += timeStep(random, now);
                if (random.nextInt(10) == 0) {
                    version = Math.max(1, version + (random.nextInt(3) == 0 ? -1 : 1));
                    spec = spec(random, version);
                }
                long capacity = spec.limits().get(0).capacity();
                long tokens = random.nextInt(4) == 0 ? capacity + 1 : 1 + (long) (random.nextDouble() * capacity);
                boolean shadow = random.nextInt(5) == 0;
                long refusal = shadow ? 0 : random.nextInt(2);
                Take take = take(new BucketKey("one"), spec, tokens, refusal, shadow);
                BucketMath.Step expected = one(take, state, now);
                RemoteBucketState given = state == null ? null : BucketMath.deserialize(BucketMath.serialize(state));
                RemoteBucketState[] states = {given};
                ConsumeResult result = BucketArithmetic.decideOwned(List.of(take), states, now).get(0);
                BucketMath.Step actual = new BucketMath.Step(result, states[0]);
                assertSameResult(actual.result(), expected.result());
                assertThat(actual.after() == null ? null : BucketMath.serialize(actual.after()))
                        .isEqualTo(expected.after() == null ? null : BucketMath.serialize(expected.after()));
                if (given != null && actual.after() == given) {
                    inPlace++;
                } else if (given != null) {
                    BucketMath.Step again = one(take, given, now);
                    assertSameResult(again.result(), expected.result());
                    refused += expected.after() == null ? 1 : 0;
                }
                state = expected.after() != null ? expected.after() : state;
            }
        }
        assertThat(inPlace).isGreaterThan(10_000);
        assertThat(refused).isGreaterThan(1_000);
    }

    /**
     * {@link BucketMath#decide} never changes a state it is given, whatever it answers: random
     * states and takes, each state's stored form the same before and after.
     */
    @Test
    void decide_neverChangesAStateItIsGiven() {
        Random random = new Random(37);
        int admitted = 0;
        for (int run = 0; run < 3_000; run++) {
            int n = 1 + random.nextInt(3);
            RemoteBucketState[] states = new RemoteBucketState[n];
            byte[][] stored = new byte[n][];
            List<Take> takes = new ArrayList<>();
            long now = startTime(random);
            for (int i = 0; i < n; i++) {
                BucketSpec spec = spec(random, 1 + random.nextInt(2));
                long spent = (long) (random.nextDouble() * spec.limits().get(0).capacity());
                states[i] = BucketArithmetic.consumeByCommand(null, spec, Math.max(1, spent), now).after();
                stored[i] = states[i] == null ? null : BucketMath.serialize(states[i]);
                long tokens = 1 + (long) (random.nextDouble() * spec.limits().get(0).capacity());
                boolean shadow = random.nextInt(6) == 0;
                takes.add(take(new BucketKey("k" + i), spec, tokens, i == 0 && !shadow ? 1 : 0, shadow));
            }
            now += timeStep(random, now);
            BucketMath.Outcome outcome = BucketMath.decide(takes, states, now);
            admitted += outcome.results().get(0).tokensTaken() ? 1 : 0;
            for (int i = 0; i < n; i++) {
                assertThat(states[i] == null ? null : BucketMath.serialize(states[i])).isEqualTo(stored[i]);
                assertThat(outcome.writes()[i]).isNotSameAs(states[i] == null ? new Object() : states[i]);
            }
        }
        assertThat(admitted).isBetween(100, 2_900); // admitted and refused consumes both checked
    }

    /** The plain decision of one take. */
    private static BucketMath.Step one(Take take, @Nullable RemoteBucketState state, long now) {
        BucketMath.Outcome outcome = BucketMath.decide(List.of(take), new RemoteBucketState[] {state}, now);
        return new BucketMath.Step(outcome.results().get(0), outcome.writes()[0]);
    }

    /**
     * A consume of several takes on states the caller gives up ({@link BucketArithmetic#decideOwned},
     * a transfer's buckets parsed for the decision) answers and writes exactly what
     * {@link BucketMath#decide} does on the states they
     * came from: admitted in place, refused (one bucket short, a plan charged its refusal token, a
     * shadow bucket short), a bucket new or at an older version.
     */
    @Test
    void decideOwned_ofSeveralTakes_answersAndWritesWhatDecideDoes() {
        Random random = new Random(31);
        int inPlace = 0;
        int other = 0;
        for (int run = 0; run < 3_000; run++) {
            int n = 2 + random.nextInt(3);
            BucketSpec[] specs = new BucketSpec[n];
            RemoteBucketState[] states = new RemoteBucketState[n];
            long now = startTime(random);
            for (int i = 0; i < n; i++) {
                specs[i] = spec(random, 1 + random.nextInt(2));
                if (random.nextInt(8) != 0) { // else a new bucket
                    long spent = (long) (random.nextDouble() * specs[i].limits().get(0).capacity());
                    states[i] = BucketArithmetic.consumeByCommand(null,
                            BucketSpec.of(specs[i].limits(), 1 + random.nextInt(2)), Math.max(1, spent), now).after();
                }
            }
            now += timeStep(random, now);
            List<Take> takes = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                long capacity = specs[i].limits().get(0).capacity();
                long tokens = random.nextInt(6) == 0 ? capacity + 1 : 1 + (long) (random.nextDouble() * capacity / 2);
                boolean shadow = random.nextInt(6) == 0;
                takes.add(take(new BucketKey("k" + i), specs[i], tokens, i == 0 && !shadow ? 1 : 0, shadow));
            }
            BucketMath.Outcome expected = BucketMath.decide(takes, states.clone(), now);
            RemoteBucketState[] given = new RemoteBucketState[n];
            for (int i = 0; i < n; i++) {
                given[i] = states[i] == null ? null : BucketMath.deserialize(BucketMath.serialize(states[i]));
            }
            RemoteBucketState[] handed = given.clone();
            List<ConsumeResult> answers = BucketArithmetic.decideOwned(takes, given, now);
            BucketMath.Outcome actual = new BucketMath.Outcome(answers, given);
            boolean same = true;
            for (int i = 0; i < n; i++) {
                assertSameResult(actual.results().get(i), expected.results().get(i));
                RemoteBucketState a = actual.writes()[i];
                RemoteBucketState e = expected.writes()[i];
                assertThat(a == null ? null : BucketMath.serialize(a)).isEqualTo(e == null ? null : BucketMath.serialize(e));
                same &= a != null && a == handed[i];
            }
            inPlace += same ? 1 : 0;
            other += same ? 0 : 1;
        }
        assertThat(inPlace).isGreaterThan(50); // both kinds compared: in place, and through decide
        assertThat(other).isGreaterThan(300);
    }

    @Test
    void aKeyTwiceInOneConsume_isRefused_amongFewTakesAndAmongMany() {
        BucketSpec spec = BucketSpec.of(List.of(new Limit("burst", 10, Refill.greedy(10, Duration.ofSeconds(1)))), 1);
        for (int n : new int[] {2, 5, 8, 9, 20}) {
            List<Take> takes = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                takes.add(Take.of(new BucketKey("k" + i), spec, 1));
            }
            BucketMath.requireDistinctKeys(takes); // distinct: accepted
            takes.set(n - 1, Take.of(new BucketKey("k" + (n / 2 - 1)), spec, 1));
            assertThat(catchThrowable(() -> BucketMath.requireDistinctKeys(takes)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("appears twice");
        }
    }

    /** One random operation on {@code before}, both ways; the state the bucket holds afterwards. */
    private static @Nullable RemoteBucketState compareStep(Random random, @Nullable RemoteBucketState before,
                                                           BucketSpec spec, long now) {
        long capacity = spec.limits().get(0).capacity();
        switch (random.nextInt(4)) {
            case 0, 1 -> {
                long tokens = switch (random.nextInt(5)) {
                    case 0 -> capacity + 1 + random.nextInt(3);
                    case 1 -> Long.MAX_VALUE / (1 + random.nextInt(3));
                    default -> 1 + Math.floorMod(random.nextLong(), Math.min(capacity, 1L << 40));
                };
                BucketMath.Step fast = same(() -> BucketMath.consume(copy(before), spec, tokens, now),
                        () -> BucketArithmetic.consumeByCommand(copy(before), spec, tokens, now),
                        (a, b) -> {
                            assertSameResult(a.result(), b.result());
                            assertSameState(a.after(), b.after());
                        });
                return fast != null && fast.after() != null ? fast.after() : before;
            }
            case 2 -> {
                same(() -> BucketMath.peek(copy(before), spec, now),
                        () -> BucketArithmetic.peekByCommand(copy(before), spec, now), BucketArithmeticTest::assertSameResult);
                return before;
            }
            default -> {
                long tokens = switch (random.nextInt(4)) {
                    case 0 -> 1 + random.nextInt(5);
                    case 1 -> -(1 + random.nextInt(5));
                    case 2 -> -(capacity * (1 + random.nextInt(3)) + random.nextInt(7)); // a debt past a whole bucket
                    default -> -(Long.MAX_VALUE / (2 + random.nextInt(3)));
                };
                RemoteBucketState after = same(() -> BucketMath.addTokens(copy(before), spec, tokens, now),
                        () -> BucketArithmetic.addTokensByCommand(copy(before), spec, tokens, now),
                        BucketArithmeticTest::assertSameState);
                return after != null ? after : before;
            }
        }
    }

    private interface Check<T> {
        void same(T fast, T byCommand);
    }

    /** Both ways, and the same answer or the same exception; the answer, or null when both threw. */
    private static <T> @Nullable T same(Supplier<T> fast, Supplier<T> byCommand, Check<T> check) {
        T a = null;
        T b = null;
        RuntimeException fastFailure = null;
        RuntimeException commandFailure = null;
        try {
            a = fast.get();
        } catch (RuntimeException e) {
            fastFailure = e;
        }
        try {
            b = byCommand.get();
        } catch (RuntimeException e) {
            commandFailure = e;
        }
        if (commandFailure != null || fastFailure != null) {
            assertThat(fastFailure).as("both fail, alike").isNotNull();
            assertThat(commandFailure).as("both fail, alike").isNotNull();
            assertThat(fastFailure).hasSameClassAs(commandFailure).hasMessage(commandFailure.getMessage());
            return null;
        }
        check.same(Objects.requireNonNull(a), Objects.requireNonNull(b));
        return a;
    }

    private static void assertSameResult(ConsumeResult fast, ConsumeResult byCommand) {
        assertThat(fast.tokensTaken()).isEqualTo(byCommand.tokensTaken());
        assertThat(fast.remaining()).containsExactly(byCommand.remaining());
        assertThat(fast.nanosToWait()).isEqualTo(byCommand.nanosToWait());
        assertThat(fast.nanosToFull()).isEqualTo(byCommand.nanosToFull());
        assertThat(fast.lease()).isEqualTo(byCommand.lease());
    }

    private static void assertSameState(@Nullable RemoteBucketState fast, @Nullable RemoteBucketState byCommand) {
        if (byCommand == null) {
            assertThat(fast).isNull();
            return;
        }
        assertThat(fast).isNotNull();
        assertThat(bucket4jBytes(Objects.requireNonNull(fast))).isEqualTo(bucket4jBytes(byCommand));
        assertStoredFormExact(fast);
    }

    /** {@link BucketMath#serialize} writes Bucket4j's bytes, and reading them back gives a state that writes them again. */
    private static void assertStoredFormExact(RemoteBucketState state) {
        byte[] expected = bucket4jBytes(state);
        assertThat(BucketMath.serialize(state)).isEqualTo(expected);
        RemoteBucketState read = BucketMath.deserialize(expected);
        assertThat(bucket4jBytes(read)).isEqualTo(expected);
        assertThat(read.equalsByContent(InternalSerializationHelper.deserializeState(expected))).isTrue();
        assertThat(read.getConfigurationVersion()).isEqualTo(state.getConfigurationVersion());
        // written into a buffer at an offset: the same bytes; past its end: nothing written, minus the length
        byte[] into = new byte[expected.length + 10];
        assertThat(StateWire.write(state, into, 7)).isEqualTo(expected.length);
        assertThat(Arrays.copyOfRange(into, 7, 7 + expected.length)).isEqualTo(expected);
        byte[] tooShort = new byte[expected.length + 6];
        assertThat(StateWire.write(state, tooShort, 7)).isEqualTo(-expected.length);
        assertThat(tooShort).containsOnly((byte) 0);
        // read from the start of a longer scratch buffer, stale bytes past the state: the same state
        byte[] scratch = Arrays.copyOf(expected, expected.length + 41);
        Arrays.fill(scratch, expected.length, scratch.length, (byte) 0x5A);
        RemoteBucketState fromScratch = StateWire.read(scratch, expected.length);
        assertThat(bucket4jBytes(fromScratch)).isEqualTo(expected);
        // a state cut short in the scratch buffer is not taken for one
        Throwable cut = catchThrowable(() -> StateWire.read(scratch, expected.length - 1));
        assertThat(cut).isNotNull();
    }

    private static byte[] bucket4jBytes(RemoteBucketState state) {
        return InternalSerializationHelper.serializeState(state, BucketMath.WIRE_VERSION);
    }

    /** A copy, so that neither way can pass by changing the state the other one starts from. */
    private static @Nullable RemoteBucketState copy(@Nullable RemoteBucketState state) {
        return state == null ? null : state.copy();
    }

    private static BucketSpec spec(Random random, long version) {
        int n = 1 + random.nextInt(3);
        List<Limit> limits = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long capacity = switch (random.nextInt(4)) {
                case 0 -> 1 + random.nextInt(3);
                case 1 -> 1 + random.nextInt(100);
                case 2 -> 1 + random.nextInt(1_000_000);
                default -> 1 + Math.floorMod(random.nextLong(), 1L << (40 + random.nextInt(20)));
            };
            Duration period = PERIODS[random.nextInt(PERIODS.length)];
            long tokens = random.nextInt(3) == 0 ? capacity : 1 + Math.floorMod(random.nextLong(), capacity);
            tokens = Math.min(tokens, period.toNanos()); // Bucket4j refills at most a token a nanosecond
            Refill refill = random.nextBoolean() ? Refill.greedy(tokens, period) : Refill.interval(tokens, period);
            limits.add(new Limit(NAMES[i], capacity, refill));
        }
        if (random.nextInt(5) == 0) {
            // the limits in another order, or another set of names: matched by name, not by place
            Collections.rotate(limits, 1);
        }
        return BucketSpec.of(limits, version);
    }

    private static long startTime(Random random) {
        return switch (random.nextInt(3)) {
            case 0 -> random.nextInt(1_000);
            case 1 -> 1_764_547_200_000_000_000L + Math.floorMod(random.nextLong(), 1L << 45); // December 2025
            default -> (1L << 62) + Math.floorMod(random.nextLong(), 1L << 60);
        };
    }

    private static long timeStep(Random random, long now) {
        long step = switch (random.nextInt(6)) {
            case 0 -> 0;
            case 1 -> 1;
            case 2 -> random.nextInt(1_000_000);
            case 3 -> Math.floorMod(random.nextLong(), 10_000_000_000L);
            case 4 -> Math.floorMod(random.nextLong(), 100_000_000_000_000L);
            default -> Math.floorMod(random.nextLong(), 1L << 50);
        };
        return now + step < 0 ? 0 : step;
    }

    /** A shadow take (no refusal tokens) or an enforced one charged {@code refusal} when refused. */
    private static Take take(BucketKey key, BucketSpec spec, long tokens, long refusal, boolean shadow) {
        return shadow ? Take.shadow(key, spec, tokens) : Take.of(key, spec, tokens, refusal);
    }
}
