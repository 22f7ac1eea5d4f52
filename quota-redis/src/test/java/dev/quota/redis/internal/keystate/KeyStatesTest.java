package dev.quota.redis.internal.keystate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketMath;
import dev.quota.core.spi.BucketSpec;
import dev.quota.redis.internal.encoding.StateDigest;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;

class KeyStatesTest {

    private static final long NOW = 1_800_000_000_000_000_000L;
    private static final long HOUR = 3_600_000_000_000L;
    private static final BucketSpec ONE_LIMIT = BucketSpec.of(List.of(
            new Limit("burst", 1_000, Refill.greedy(1_000, Duration.ofHours(1)))), 0);
    /** The transfer's buckets: the plan's burst and hourly limits in one, then three of one limit each. */
    private static final BucketSpec PLAN = BucketSpec.of(List.of(
            new Limit("burst", 100, Refill.greedy(50, Duration.ofSeconds(1))),
            new Limit("hourly", 5_000, Refill.interval(5_000, Duration.ofHours(1)))), 0);
    private static final BucketSpec DAY = BucketSpec.of(List.of(
            new Limit("daily", 50_000, Refill.interval(50_000, Duration.ofDays(1)))), 0);
    private static final BucketSpec PER_MINUTE = BucketSpec.of(List.of(
            new Limit("per-minute", 1_000, Refill.greedy(1_000, Duration.ofMinutes(1)))), 0);
    private static final BucketSpec AMOUNT = BucketSpec.of(List.of(
            new Limit("daily", 1_000_000, Refill.interval(1_000_000, Duration.ofDays(1)))), 0);

    @Test
    void keyPushedOutOfTheHotTier_comesBackWithItsExactBytesDigestAndTimes_unparsed() {
        KeyStates known = new KeyStates(400_000);
        KeyState first = state(1, NOW);
        byte[] bytes = Objects.requireNonNull(first.bytes());
        long expires = first.expiresNanos();
        known.put("quota:{c.first}:p", first, NOW);
        for (int i = 0; i < KeyStates.HOT_KEYS; i++) {
            known.put("quota:{c." + i + "}:p", state(1 + i % 900, NOW + i), NOW + i);
        }

        KeyState back = Objects.requireNonNull(known.get("quota:{c.first}:p", NOW + HOUR / 2));

        // kept as its cold record, no bytes of its own
        assertThat(back.unparsed()).isTrue();
        assertThat(back.bytes()).isNull();
        assertThat(back.record()).isNotNull();
        assertThat(known.bytes(back)).isEqualTo(bytes);
        // parsed by the round that uses it, from a scratch buffer, into a state of its own: the same
        // state, and the digest of its exact bytes
        RemoteBucketState parsed = known.parse(back);
        assertThat(BucketMath.serialize(parsed)).isEqualTo(bytes);
        StateDigest digest = StateDigest.local().of(bytes);
        assertThat(back.holds(digest)).isTrue();
        assertThat(back.confirmedNanos()).isEqualTo(NOW);
        assertThat(back.expiresNanos()).isEqualTo(expires);
        assertThat(known.size()).isEqualTo(KeyStates.HOT_KEYS + 1);
    }

    /** Keys taking turns in the hot tier cost no entry each: the one that warms takes the one that cooled. */
    @Test
    void keyWarming_takesTheEntryOfTheKeyThatCooled_andAnUnwrittenOneCoolsBackAsItCame() {
        KeyStates known = new KeyStates(400_000);
        KeyState a = state(1, NOW);
        byte[] aBytes = Objects.requireNonNull(a.bytes());
        known.put("a", a, NOW);
        KeyState[] hot = new KeyState[KeyStates.HOT_KEYS];
        for (int i = 0; i < hot.length; i++) {
            hot[i] = state(1 + i % 900, NOW);
            known.put("k" + i, hot[i], NOW);
        }
        byte[] k0Bytes = Objects.requireNonNull(hot[0].bytes());

        KeyState backA = known.get("a", NOW + 1); // k0 cools
        KeyState backK0 = known.get("k0", NOW + 2); // k1 cools
        for (int i = 2; i < hot.length; i++) {
            known.get("k" + i, NOW + 3); // used: a is now the least recently used
        }
        assertThat(backA).as("a's own entry, which cooled first").isSameAs(a);
        assertThat(backK0).as("k0's, which cooled when a warmed").isSameAs(hot[0]);
        assertThat(known.bytes(Objects.requireNonNull(backK0))).isEqualTo(k0Bytes);
        known.put("n", state(2, NOW), NOW + 3); // a cools again, unwritten: as its record
        KeyState aThird = Objects.requireNonNull(known.get("a", NOW + 4)); // k0 cools

        assertThat(aThird).as("a's entry again: it cooled last").isSameAs(a);
        assertThat(known.bytes(aThird)).isEqualTo(aBytes);
        assertThat(aThird.confirmedNanos()).isEqualTo(NOW);
    }

    /**
     * A state a script wrote is remembered as its parsed state and digest, not its bytes (they
     * were in the sending thread's buffer); cooling, it is serialized again: the exact bytes written.
     */
    @Test
    void stateAScriptWrote_keptWithoutItsBytes_coolsAndComesBackAsTheExactBytesWritten() {
        KeyStates known = new KeyStates(400_000);
        KeyState wrote = state(3, NOW);
        byte[] bytes = Objects.requireNonNull(wrote.bytes());
        StateDigest digest = StateDigest.local();
        digest.startScript();
        digest.append(Objects.requireNonNull(wrote.state()));
        known.confirmDigest("w", digest, wrote.state(), NOW, 60_000);
        KeyState hot = Objects.requireNonNull(known.get("w", NOW));
        assertThat(hot.bytes()).isNull();
        assertThat(hot.state()).isSameAs(wrote.state());
        assertThat(hot.holds(StateDigest.local().of(bytes))).isTrue();
        for (int i = 0; i < KeyStates.HOT_KEYS; i++) {
            known.put("k" + i, state(1, NOW), NOW);
        }

        KeyState back = Objects.requireNonNull(known.get("w", NOW + 1));

        assertThat(back.unparsed()).isTrue();
        assertThat(known.bytes(back)).isEqualTo(bytes);
        assertThat(BucketMath.serialize(known.parse(back))).isEqualTo(bytes);
        assertThat(back.holds(StateDigest.local().of(bytes))).isTrue();
    }

    /** A write confirmed on a key in use makes its entry over: no object a write. */
    @Test
    void confirm_ofAHotKey_makesItsEntryOver_elseRemembersItAsPut() {
        KeyStates known = new KeyStates(400_000);
        KeyState first = state(1, NOW);
        known.put("hot", first, NOW);
        KeyState later = state(2, NOW + 5);

        byte[] laterBytes = Objects.requireNonNull(later.bytes());
        known.confirmBytes("hot", laterBytes, later.state(), NOW + 5, 60_000);
        known.confirmBytes("new", laterBytes, later.state(), NOW + 5, 60_000);
        known.confirmAbsent("absent", NOW + 5);

        KeyState hot = Objects.requireNonNull(known.get("hot", NOW + 6));
        assertThat(hot).isSameAs(first);
        assertThat(hot.bytes()).isEqualTo(later.bytes());
        assertThat(hot.state()).isSameAs(later.state());
        assertThat(hot.confirmedNanos()).isEqualTo(NOW + 5);
        assertThat(hot.expiresNanos()).isEqualTo(NOW + 5 + Duration.ofSeconds(59).toNanos());
        KeyState made = Objects.requireNonNull(known.get("new", NOW + 6));
        assertThat(made.bytes()).isEqualTo(later.bytes());
        assertThat(known.get("absent", NOW + 6)).isNotNull().extracting(KeyState::bytes).isNull();
        assertThat(known.get("absent", NOW + 5 + Duration.ofSeconds(10).toNanos())).as("no key: remembered 10 s").isNull();
    }

    @Test
    void absentKey_pushedOutOfTheHotTier_isStillKnownAbsent() {
        KeyStates known = new KeyStates(400_000);
        known.put("gone", KeyStates.knownState(null, null, NOW, 0), NOW);
        for (int i = 0; i < KeyStates.HOT_KEYS; i++) {
            known.put("k" + i, state(1, NOW), NOW);
        }

        KeyState back = known.get("gone", NOW + 1);

        assertThat(back).isNotNull();
        assertThat(back.bytes()).isNull();
        assertThat(back.state()).isNull();
        assertThat(back.unparsed()).isFalse();
    }

    @Test
    void boundCountsBothTiers_andAKeyPastItCostsOnlyItsState() {
        KeyStates known = new KeyStates(KeyStates.HOT_KEYS + 1_000);
        for (int i = 0; i < KeyStates.HOT_KEYS + 5_000; i++) {
            known.put("k" + i, state(1, NOW), NOW);
        }

        assertThat(known.size()).isEqualTo(KeyStates.HOT_KEYS + 1_000);
        assertThat(known.get("k" + (KeyStates.HOT_KEYS + 4_999), NOW)).as("used last").isNotNull();
    }

    @Test
    void expiredInEitherTier_isForgotten() {
        KeyStates known = new KeyStates(400_000);
        known.put("cold", state(1, NOW), NOW);
        for (int i = 0; i < KeyStates.HOT_KEYS; i++) {
            known.put("k" + i, state(1, NOW), NOW);
        }
        long expired = state(1, NOW).expiresNanos();

        assertThat(known.get("cold", expired)).isNull();
        assertThat(known.get("k1", expired)).isNull();
    }

    @Test
    void removeAndForgets_reachBothTiers() {
        KeyStates known = new KeyStates(400_000);
        known.put("cold", state(1, NOW), NOW);
        known.put("also-cold", state(1, NOW), NOW);
        for (int i = 0; i < KeyStates.HOT_KEYS; i++) {
            known.put("k" + i, state(1, NOW), NOW);
        }

        known.remove("cold");
        known.forgetLater("k7");
        known.applyForgets();

        assertThat(known.get("cold", NOW)).isNull();
        assertThat(known.get("k7", NOW)).isNull();
        assertThat(known.get("also-cold", NOW)).isNotNull();
        known.forgetAllLater();
        known.applyForgets();
        assertThat(known.size()).isZero();
    }

    @Test
    void keyPushedOutPastTheBound_beforeItExpired_mustBeReadFirst_untilRememberedAgain() {
        // one cold record at most: the second key to cool pushes the first out
        KeyStates known = new KeyStates(KeyStates.HOT_KEYS + 1);
        known.put("first", state(1, NOW), NOW);
        for (int i = 0; i <= KeyStates.HOT_KEYS; i++) {
            known.put("k" + i, state(1, NOW), NOW);
        }

        assertThat(known.get("first", NOW)).isNull();
        assertThat(known.mustRead("first", NOW)).as("forgotten while Redis holds it").isTrue();
        assertThat(known.mustRead("k0", NOW)).as("cold, remembered").isFalse();
        assertThat(known.mustRead("k9", NOW)).as("hot").isFalse();
        assertThat(known.mustRead("never-seen", NOW)).as("a new key is assumed absent").isFalse();
        known.put("first", state(2, NOW), NOW);
        assertThat(known.mustRead("first", NOW)).as("remembered again").isFalse();
    }

    @Test
    void keyPushedOutAfterItExpired_isNotRead_norIsOneNeverSeen() {
        KeyStates known = new KeyStates(KeyStates.HOT_KEYS + 1);
        // remembered for a second: its TTL, 2 s, less the margin
        known.put("brief", KeyStates.knownState(state(1, NOW).bytes(), state(1, NOW).state(), NOW, 2_000), NOW);
        long later = NOW + 5_000_000_000L;
        for (int i = 0; i <= KeyStates.HOT_KEYS + 1; i++) {
            known.put("k" + i, state(1, later), later);
        }

        assertThat(known.mustRead("brief", later)).as("Redis expired it: absent").isFalse();
        assertThat(known.mustRead("never-seen", later)).isFalse();
    }

    @Test
    void keyForgottenInDoubt_mustBeReadFirst() {
        KeyStates known = new KeyStates(400_000);
        known.put("doubt", state(1, NOW), NOW);
        known.put("deleted", state(1, NOW), NOW);

        known.forget("doubt");
        known.remove("deleted");

        assertThat(known.mustRead("doubt", NOW)).isTrue();
        assertThat(known.mustRead("deleted", NOW)).as("known to hold nothing").isFalse();
    }

    /**
     * The notes of forgotten keys take at most one long per remembered key: 8 MiB for the default
     * bound under {@code -Xmx1g}, allocated only once a key is forgotten.
     */
    @Test
    void notesOfForgottenKeys_takeAtMostEightBytesPerRememberedKey() {
        int bound = KeyStates.defaultBound(1L << 30);
        KeyStates known = new KeyStates(bound);
        known.put("a", state(1, NOW), NOW);
        assertThat(known.forgottenBytes()).as("nothing forgotten yet").isZero();

        known.forget("a");

        assertThat(known.forgottenBytes()).isPositive().isLessThanOrEqualTo(8L * bound);
    }

    /**
     * The heap a remembered key costs, measured: 200,000 one-limit buckets of distinct customers
     * with distinct tokens and times, remembered as the store remembers them (the bound's default),
     * the heap in use after a full collection before and after.
     */
    @Test
    void rememberedKey_costsAtMost150BytesOfHeap() {
        int keys = 200_000;
        KeyState[] states = new KeyState[1_000];
        for (int i = 0; i < states.length; i++) {
            states[i] = state(1 + i % 900, NOW + i * 1_000_003L);
        }
        long before = usedAfterFullGc();
        KeyStates known = new KeyStates(400_000);
        for (int i = 0; i < keys; i++) {
            known.put("quota:{c." + Long.toString(i * 0x9E3779B97F4A7C15L, 36) + "}:p", handedOver(states[i % states.length]), NOW);
        }
        long after = usedAfterFullGc();

        assertThat(known.size()).isEqualTo(keys);
        assertThat((after - before) / (double) keys).as("bytes per remembered key").isLessThanOrEqualTo(150);
    }

    /**
     * The demo's transfer keeps four keys a customer: the plan's two-limit bucket and three
     * one-limit buckets (its day, the rule per customer, the amount per currency). 100,000 such
     * customers, remembered as the store remembers them, measured like the one-limit keys above:
     * about 105 bytes a key (117 while each compact record was an array of its own).
     */
    @Test
    void rememberedTransferKeys_costAtMost110BytesOfHeapEach() {
        int customers = 100_000;
        BucketSpec[] specs = {PLAN, DAY, PER_MINUTE, AMOUNT};
        KeyState[][] states = new KeyState[specs.length][500];
        for (int k = 0; k < specs.length; k++) {
            for (int i = 0; i < states[k].length; i++) {
                states[k][i] = state(specs[k], 1 + i % 90, NOW + i * 1_000_003L);
            }
        }
        String[] suffixes = {":p", ":p:daily:1800000000", ":r:transfers", ":a:transfer-amount:EUR:daily:1800000000"};
        long before = usedAfterFullGc();
        KeyStates known = new KeyStates(4 * customers);
        for (int c = 0; c < customers; c++) {
            String tag = "quota:{c." + Long.toString(c * 0x9E3779B97F4A7C15L, 36) + "}";
            for (int k = 0; k < specs.length; k++) {
                known.put(tag + suffixes[k], handedOver(states[k][(c + k) % states[k].length]), NOW);
            }
        }
        long after = usedAfterFullGc();

        assertThat(known.size()).isEqualTo(4 * customers);
        assertThat((after - before) / (4.0 * customers)).as("bytes per remembered key").isLessThanOrEqualTo(110);
    }

    @Test
    void defaultBound_isOneKeyPerKibOfMaximumHeap() {
        assertThat(KeyStates.defaultBound(1L << 30)).isEqualTo(1_048_576);
        assertThat(KeyStates.defaultBound(512L << 20)).isEqualTo(524_288);
        assertThat(KeyStates.defaultBound(Long.MAX_VALUE)).as("no -Xmx").isEqualTo(1_048_576);
        assertThat(KeyStates.defaultBound(256L << 10)).isEqualTo(KeyStates.HOT_KEYS);
    }

    /**
     * The default bound under {@code -Xmx1g} filled: a million customers' one-limit keys, each
     * remembered, take at most an eighth of that heap (128 bytes a key).
     */
    @Test
    void defaultBoundForAOneGigabyteHeap_filledWithAMillionCustomers_takesAtMostAnEighthOfIt() {
        int keys = KeyStates.defaultBound(1L << 30);
        KeyState[] states = new KeyState[1_000];
        for (int i = 0; i < states.length; i++) {
            states[i] = state(1 + i % 900, NOW + i * 1_000_003L);
        }
        long before = usedAfterFullGc();
        KeyStates known = new KeyStates(keys);
        for (int i = 0; i < keys; i++) {
            known.put("quota:{c." + Long.toString(i * 0x9E3779B97F4A7C15L, 36) + "}:p", handedOver(states[i % states.length]), NOW);
        }
        long after = usedAfterFullGc();

        assertThat(known.size()).isEqualTo(keys);
        assertThat(after - before).as("bytes kept").isLessThanOrEqualTo((1L << 30) / 8);
    }

    private static long usedAfterFullGc() {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        }
        return used;
    }

    /** An entry of its own holding what {@code shared} holds: a state put is handed over, made over when its key cools. */
    private static KeyState handedOver(KeyState shared) {
        byte[] bytes = Objects.requireNonNull(shared.bytes(), "made from its bytes");
        return new KeyState().set(StateDigest.local().of(bytes), bytes, shared.state(), shared.confirmedNanos(),
                shared.expiresNanos());
    }

    /** A key's state after {@code requests} one-token takes at {@code now}, remembered as a script's write is. */
    private static KeyState state(int requests, long now) {
        return state(ONE_LIMIT, requests, now);
    }

    /** A key of {@code spec} after {@code requests} one-token takes at {@code now}. */
    private static KeyState state(BucketSpec spec, int requests, long now) {
        RemoteBucketState state = null;
        for (int i = 0; i < requests; i++) {
            state = BucketMath.consume(state, spec, 1, now).after();
        }
        return KeyStates.knownState(BucketMath.serialize(state), state, now, HOUR);
    }
}
