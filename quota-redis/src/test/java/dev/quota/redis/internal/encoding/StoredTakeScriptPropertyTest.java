package dev.quota.redis.internal.encoding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.internal.Bandwidths;
import dev.quota.core.internal.StateWire;
import dev.quota.core.spi.BucketMath;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.redis.internal.engine.Cell;
import dev.quota.testkit.RedisExtension;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.BucketState;
import io.github.bucket4j.MathType;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import io.github.bucket4j.distributed.remote.RemoteStat;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.Redisson;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.config.Config;

/**
 * The compare-and-swap script's take from a state another instance wrote ({@link StoredTake}),
 * run on a real Redis over random states, takes and times, checked against the plain arithmetic
 * (Bucket4j's refill-then-consume through {@link BucketMath}) on the same stored state: where the
 * script takes, no refill up to the round reaches capacity and the stored tokens cover the take, it
 * leaves exactly the stored tokens less the take, with the refill time and rounding error as
 * stored; where a greedy refill reaches capacity, or had to be credited to cover the take, exactly
 * the arithmetic's state. Either way that state refilled to the round's time or any
 * later one holds exactly what the plain arithmetic's does (never more). Where it does not take,
 * the rule says it must not, and nothing was written.
 */
class StoredTakeScriptPropertyTest {

    private static final String KEY = "quota:{c.take}:p";
    private static final int CASES = 4_000;
    private static final long BASE = 1_765_000_000_000_000_000L;

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private RedissonClient client;

    @BeforeEach
    void connect() {
        Config config = new Config();
        config.useSingleServer().setAddress(redis.uri());
        client = Redisson.create(config);
    }

    @AfterEach
    void disconnect() {
        client.shutdown();
    }

    @Test
    void takeFromAnotherInstancesState_isStoredLessTheTakeBelowCapacity_andNeverMoreThanThePlainArithmeticLeaves() {
        SplittableRandom random = new SplittableRandom(20261207L);
        int took = 0;
        int refused = 0;
        int refilledFirst = 0;
        for (int c = 0; c < CASES; c++) {
            BucketSpec spec = spec(random);
            BucketConfiguration configuration = Bandwidths.configuration(spec);
            // another configuration now and then; a newer config version (another instance's) or an older
            // one (an instance started earlier, a fleet's usual case without a version in its file)
            int version = random.nextInt(8);
            RemoteBucketState stored = state(random, random.nextInt(8) == 0 ? Bandwidths.configuration(spec(random))
                    : configuration, version == 0 ? spec.version() + 1 + random.nextInt(1000)
                    : version <= 2 ? random.nextLong(0, spec.version()) : spec.version());
            RemoteBucketState sent = state(random, configuration, spec.version());
            long capacity = configuration.getBandwidths()[0].getCapacity();
            long tokens = 1 + random.nextLong(random.nextBoolean() ? Math.max(1, capacity / 4) : capacity + 2);
            // the stored state written a moment before the round (another instance's write), or after
            // it (a clock behind), or long before; or a hot key drained by the fleet, taken from as its
            // tokens come back
            int when = random.nextInt(4);
            if (when == 3) {
                stored.consume(Math.max(0, stored.getAvailableTokens()));
                tokens = 1 + random.nextLong(3);
            }
            Bandwidth first = configuration.getBandwidths()[0];
            long now = lastRefill(stored) + (when == 0 ? random.nextLong(-2_000_000_000L, 1)
                    : when == 1 ? random.nextLong(0, 10_000_000L)
                    : when == 2 ? random.nextLong(0, 7_200_000_000_000L)
                    : random.nextLong(0, Math.min(1L << 50, 4 * tokens * (first.getRefillPeriodNanos() / first.getRefillTokens() + 1))));
            long later = now + random.nextLong(0, 100_000_000_000L);
            String description = "case " + c + ": stored " + stored.getState() + " of " + stored.getConfiguration()
                    + ", take " + tokens + " at " + now;

            byte[] storedBytes = StateWire.write(stored);
            client.getBucket(KEY, ByteArrayCodec.INSTANCE).set(storedBytes);
            List<byte[]> answer = call(sent, tokens, spec.version(), now);
            byte[] holds = (byte[]) client.getBucket(KEY, ByteArrayCodec.INSTANCE).get();

            if (!answer.isEmpty() && Arrays.equals(answer.get(0), new byte[] {'+'})) {
                took++;
                if (refillsFirst(stored, tokens, now)) {
                    refilledFirst++;
                }
                byte[] written = answer.get(2);
                assertThat(holds).as(description).isEqualTo(written);
                RemoteBucketState after = StateWire.read(written);
                assertTakenAsTheRuleSays(description, spec, stored, after, tokens, now);
                assertNoMoreThanPlain(description, spec, stored, after, tokens, now, later);
            } else {
                refused++;
                assertThat(answer).as(description).hasSize(2);
                assertThat(answer.get(1)).as(description).isEqualTo(storedBytes);
                assertThat(holds).as(description + ": nothing written").isEqualTo(storedBytes);
                assertThat(applies(stored, sent, spec, tokens, now)).as(description + ": refused a safe take").isFalse();
            }
        }
        assertThat(took).as("cases the script took from the stored state").isGreaterThan(CASES / 10);
        assertThat(refused).as("cases it answered the stored state").isGreaterThan(CASES / 5);
        assertThat(refilledFirst).as("cases it took only after refilling to the round's time").isGreaterThan(CASES / 40);
    }

    /** Whether some bandwidth's stored tokens alone do not cover the take, its refill below capacity doing so. */
    private static boolean refillsFirst(RemoteBucketState stored, long tokens, long now) {
        for (int i = 0; i < stored.getConfiguration().getBandwidths().length; i++) {
            if (belowCapacity(stored, i, now) && stored.getState().getCurrentSize(i) < tokens) {
                return true;
            }
        }
        return false;
    }

    /** One limit, or two (a rate and a day): greedy or interval refills of random sizes and periods. */
    private static BucketSpec spec(SplittableRandom random) {
        List<Limit> limits = new ArrayList<>();
        int count = 1 + random.nextInt(2);
        for (int i = 0; i < count; i++) {
            long capacity = 1 + random.nextLong(random.nextBoolean() ? 20 : 5_000_000);
            long refill = 1 + random.nextLong(capacity);
            // Bucket4j refills at most a token a nanosecond
            Duration period = Duration.ofNanos(refill + random.nextLong(random.nextBoolean() ? 2_000_000_000L
                    : 86_400_000_000_000L));
            limits.add(new Limit("l" + i, capacity, random.nextBoolean() ? Refill.greedy(refill, period)
                    : Refill.interval(refill, period)));
        }
        return BucketSpec.of(limits, 1 + random.nextInt(3));
    }

    /** A state of {@code configuration} with a history: taken from, refilled a while, taken from again. */
    private static RemoteBucketState state(SplittableRandom random, BucketConfiguration configuration, long version) {
        long start = BASE + random.nextLong(0, 1_000_000_000_000L);
        BucketState bucket = BucketState.createInitialState(configuration, MathType.INTEGER_64_BITS, start);
        RemoteBucketState state = new RemoteBucketState(bucket, new RemoteStat(0), version);
        long capacity = configuration.getBandwidths()[0].getCapacity();
        state.consume(random.nextLong(0, capacity + 3));
        if (random.nextBoolean()) {
            state.consume(random.nextLong(0, Math.max(1, state.getAvailableTokens() / 2 + 1))); // room below capacity
        }
        state.refillAllBandwidth(start + random.nextLong(0, 10_000_000_000L));
        if (random.nextInt(4) > 0) {
            state.consume(random.nextLong(0, Math.max(1, state.getAvailableTokens() + 2)));
        }
        if (random.nextInt(20) == 0) {
            state.forceAddTokens(capacity); // above capacity, as a forced add leaves it
        }
        return state;
    }

    private List<byte[]> call(RemoteBucketState sent, long tokens, long specVersion, long now) {
        Cell cell = new Cell(KEY, new byte[] {1, 2, 3}, null, true, 0); // expects what no key holds
        StateDigest digest = StateDigest.local();
        digest.startScript();
        int at = digest.append(sent);
        cell.sending(digest, at);
        cell.take = StoredTake.describe(sent, digest, at, tokens, specVersion, now);
        cell.ttlMillis = 60_000;
        List<Cell> cells = List.of(cell);
        ByteBuf argument = Unpooled.buffer(CasScript.argumentLength(cells));
        CasScript.writeArgument(argument, cells);
        List<Object> answer = client.getScript(ByteArrayCodec.INSTANCE).eval(KEY, RScript.Mode.READ_WRITE,
                CasScript.TEXT, RScript.ReturnType.LIST, List.of(KEY), (Object) ByteBufUtil.getBytes(argument));
        List<byte[]> out = new ArrayList<>();
        for (Object part : answer) {
            out.add((byte[]) part);
        }
        return out;
    }

    /**
     * Per bandwidth: where no refill is due or it stays below capacity and the stored tokens cover
     * the take, exactly the stored tokens less the take, the refill time and rounding error as
     * stored; where a greedy refill reaches capacity, covers what the stored tokens lack, or the
     * bandwidth is at or above capacity, exactly Bucket4j's refill-then-consume state.
     */
    private static void assertTakenAsTheRuleSays(String description, BucketSpec spec, RemoteBucketState stored,
                                                 RemoteBucketState after, long tokens, long now) {
        Bandwidth[] bandwidths = stored.getConfiguration().getBandwidths();
        assertThat(after.getConfiguration().getBandwidths()).as(description).isEqualTo(bandwidths);
        assertThat(after.getConfigurationVersion()).as(description + ": the newer of the stored and the take's version")
                .isEqualTo(Math.max(Objects.requireNonNull(stored.getConfigurationVersion()), spec.version()));
        RemoteBucketState plain = Objects.requireNonNull(BucketMath.consume(stored.copy(), spec, tokens, now).after(),
                "an admitted take writes");
        long[] storedTimes = lastRefills(stored);
        long[] plainTimes = lastRefills(plain);
        long[] afterTimes = lastRefills(after);
        for (int i = 0; i < bandwidths.length; i++) {
            String bandwidth = description + ", bandwidth " + i;
            if (belowCapacity(stored, i, now) && stored.getState().getCurrentSize(i) >= tokens) {
                assertThat(after.getState().getCurrentSize(i)).as(bandwidth + ": stored less the take")
                        .isEqualTo(stored.getState().getCurrentSize(i) - tokens);
                assertThat(after.getState().getRoundingError(i)).as(bandwidth)
                        .isEqualTo(stored.getState().getRoundingError(i));
                assertThat(afterTimes[i]).as(bandwidth).isEqualTo(storedTimes[i]);
            } else {
                assertThat(after.getState().getCurrentSize(i)).as(bandwidth + ": as the arithmetic leaves it")
                        .isEqualTo(plain.getState().getCurrentSize(i));
                assertThat(after.getState().getRoundingError(i)).as(bandwidth)
                        .isEqualTo(plain.getState().getRoundingError(i));
                assertThat(afterTimes[i]).as(bandwidth).isEqualTo(plainTimes[i]);
            }
        }
    }

    /**
     * The plain arithmetic on the stored state admits the take, and what it leaves, refilled to the
     * round's time and to a later one, holds as many tokens as the script's state does then, per
     * bandwidth: the script's is never more. Its answer for the take is the peek of what the script wrote.
     */
    private static void assertNoMoreThanPlain(String description, BucketSpec spec, RemoteBucketState stored,
                                              RemoteBucketState after, long tokens, long now, long later) {
        BucketMath.Step plain = BucketMath.consume(stored.copy(), spec, tokens, now);
        assertThat(plain.result().tokensTaken()).as(description + ": plain admits").isTrue();
        RemoteBucketState truth = Objects.requireNonNull(plain.after(), "an admitted take writes");
        for (long at : new long[] {now, later}) {
            RemoteBucketState mine = after.copy();
            RemoteBucketState theirs = truth.copy();
            mine.refillAllBandwidth(at);
            theirs.refillAllBandwidth(at);
            for (int i = 0; i < stored.getConfiguration().getBandwidths().length; i++) {
                long script = mine.getState().getCurrentSize(i);
                long arithmetic = theirs.getState().getCurrentSize(i);
                assertThat(script).as(description + ", bandwidth " + i + " at " + at + ": never more").isLessThanOrEqualTo(arithmetic);
                assertThat(script).as(description + ", bandwidth " + i + " at " + at).isEqualTo(arithmetic);
            }
        }
        ConsumeResult answered = BucketMath.peek(after, spec, now);
        assertThat(answered.remaining()).as(description).isEqualTo(plain.result().remaining());
        assertThat(answered.nanosToFull()).as(description).isEqualTo(plain.result().nanosToFull());
    }

    /**
     * Whether the script should take {@code tokens} from {@code stored} at {@code now}, by the rule
     * in exact integers: the state of the configuration sent (at an older version than the spec's, no bandwidth above capacity), and on every bandwidth either no refill
     * due or one below capacity, with the stored tokens covering the take, or a greedy bandwidth
     * that the refill fills (or that is at or above capacity already) with the tokens then covering
     * it; every figure below 2^53.
     */
    private static boolean applies(RemoteBucketState stored, RemoteBucketState sent, BucketSpec spec, long tokens,
                                   long now) {
        Long version = stored.getConfigurationVersion();
        if (!stored.getConfiguration().equals(sent.getConfiguration()) || version == null) {
            return false;
        }
        boolean older = version < spec.version();
        Bandwidth[] bandwidths = stored.getConfiguration().getBandwidths();
        for (int i = 0; i < bandwidths.length; i++) {
            long s = stored.getState().getCurrentSize(i);
            long re = stored.getState().getRoundingError(i);
            long dt = now - lastRefills(stored)[i];
            if (re < 0 || Math.abs(s) >= (1L << 53) || (older && s > bandwidths[i].getCapacity())) {
                return false;
            }
            if (belowCapacity(stored, i, now)) {
                if (s < tokens && (dt <= 0 || bandwidths[i].isRefillIntervally()
                        || BigInteger.valueOf(s).add(x(stored, i, dt).divide(BigInteger.valueOf(
                                bandwidths[i].getRefillPeriodNanos()))).compareTo(BigInteger.valueOf(tokens)) < 0)) {
                    return false;
                }
            } else if (bandwidths[i].isRefillIntervally()) {
                return false;
            } else if (s >= bandwidths[i].getCapacity()) {
                if (s < tokens) {
                    return false;
                }
            } else if (!figuresExact(stored, i, dt) || bandwidths[i].getCapacity() < tokens) {
                return false;
            }
        }
        return true;
    }

    /** No refill due at {@code now}, or one that stays below capacity, its figures below 2^53. */
    private static boolean belowCapacity(RemoteBucketState stored, int i, long now) {
        long dt = now - lastRefills(stored)[i];
        if (dt <= 0) {
            return true;
        }
        Bandwidth bandwidth = stored.getConfiguration().getBandwidths()[i];
        long s = stored.getState().getCurrentSize(i);
        return figuresExact(stored, i, dt) && x(stored, i, dt).compareTo(y(bandwidth, s)) < 0;
    }

    private static boolean figuresExact(RemoteBucketState stored, int i, long dt) {
        BigInteger exact = BigInteger.ONE.shiftLeft(53);
        Bandwidth bandwidth = stored.getConfiguration().getBandwidths()[i];
        return x(stored, i, dt).compareTo(exact) < 0
                && y(bandwidth, stored.getState().getCurrentSize(i)).compareTo(exact) < 0;
    }

    /** The refill's numerator since the stored time: elapsed nanoseconds times refill tokens, plus the rounding error. */
    private static BigInteger x(RemoteBucketState stored, int i, long dt) {
        Bandwidth bandwidth = stored.getConfiguration().getBandwidths()[i];
        return BigInteger.valueOf(dt).multiply(BigInteger.valueOf(bandwidth.getRefillTokens()))
                .add(BigInteger.valueOf(stored.getState().getRoundingError(i)));
    }

    /** What the numerator must stay below for the refill to stay below capacity. */
    private static BigInteger y(Bandwidth bandwidth, long s) {
        return BigInteger.valueOf(bandwidth.getCapacity() - s).multiply(BigInteger.valueOf(bandwidth.getRefillPeriodNanos()));
    }

    private static long lastRefill(RemoteBucketState state) {
        return lastRefills(state)[0];
    }

    /** Each bandwidth's last refill time, read from the stored form (Bucket4j keeps it private). */
    private static long[] lastRefills(RemoteBucketState state) {
        byte[] bytes = StateWire.write(state);
        int n = state.getConfiguration().getBandwidths().length;
        int first = bytes.length - 9 - 12 - 24 * n;
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
            long v = 0;
            for (int b = 0; b < 8; b++) {
                v = (v << 8) | (bytes[first + 24 * i + b] & 0xff);
            }
            out[i] = v;
        }
        return out;
    }

}
