package dev.quota.redis.internal.keystate;

import dev.quota.core.internal.StateWire;
import dev.quota.core.spi.BucketMath;
import dev.quota.redis.internal.encoding.StateDigest;
import dev.quota.redis.internal.encoding.StateSha1;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import java.security.SecureRandom;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * What this instance remembers of bucket keys: at most {@code max} {@link KeyState}s, each
 * forgotten when its key may have expired in Redis.
 *
 * <p>Two tiers. The {@value #HOT_KEYS} keys used last are kept as they are used, parsed state and
 * its SHA-1 ({@link KeyState}), in an access-ordered map: a lookup is one hash probe, and a hot key (the customer who
 * floods, the limit every customer shares) is never parsed twice. A key pushed out of them is
 * kept compact in {@link ColdStates}: the words where its bytes differ from a template
 * ({@link StateTemplates}), under a 64-bit fingerprint of its name, packed into long arrays with
 * the other cold keys' ({@link RecordSlabs}): a small fraction of what the map's entry, the name
 * and the parsed state take (bounded by {@code KeyStatesTest}; the figures are in
 * docs/BENCHMARKS.md, "Figures behind the code");
 * its next use makes it hot again as its record, leaving the cold tier, and the round that uses it
 * decodes it into a per-thread buffer and parses it into a state of its own
 * ({@link KeyState#unparsed()}, {@link #parse}); the entry of the key that cooled is made over for it. Past the bound a cold key is forgotten, an expired one first,
 * else whichever the cold tier's clock hand reaches (every cold key is one not used since it left
 * the hot tier, so none earns a second chance): not strictly the least recently used. With a bound
 * no larger than the hot tier, the least recently used key is forgotten.
 *
 * <p>A fingerprint is a seeded hash, checked against a second hash of the name: two keys taken for
 * one would cost a compare-and-swap that finds the key differing, never an admission, and within
 * the trust window a refusal from the other key's state; at a million keys the chance that any two
 * share both is about 10<sup>-17</sup>.
 *
 * <p>Read and written only by the caller that combines (one thread at a time, handed over through
 * the engine's combining flag). Other threads only ask to forget ({@link #forgetLater},
 * {@link #forgetAllLater}); the combiner applies that before it next reads ({@link #applyForgets}).
 *
 * <p>The bound counts keys, not customers: a decision touches one key per bucket (the demo's
 * transfer, four of the customer's own and one shared), so 100,000 customers making transfers
 * need 400,000 keys remembered, else each decision on a forgotten key costs a second round trip
 * ({@code RedisStoreBuilder.maxRememberedKeys}). That round trip is a read before the decision
 * ({@link #mustRead}): a key forgotten before it expired is noted ({@link ForgottenKeys}), so it
 * is not assumed absent, which would make the compare-and-swap carrying it, and every decision in
 * it, fail.
 */
public final class KeyStates {

    /** Keys kept parsed: the ones used last. */
    public static final int HOT_KEYS = 1024;

    /**
     * The default bound on remembered keys ({@code RedisStoreBuilder.maxRememberedKeys}) for a
     * maximum heap of {@code maxHeapBytes}: one key per KiB, {@value #HOT_KEYS} to 1,048,576.
     */
    public static int defaultBound(long maxHeapBytes) {
        return (int) Math.max(HOT_KEYS, Math.min(1 << 20, maxHeapBytes / 1024));
    }
    /** Expired entries looked at, from the least recently used end, per entry added. */
    private static final int SWEEP = 2;
    /** A remembered state is forgotten this long before Redis expires its key. */
    private static final long EXPIRY_MARGIN_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How long "there is no key" is remembered. */
    private static final long ABSENT_REMEMBERED_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final int hotMax;
    private final LinkedHashMap<String, KeyState> hot;
    private final ColdStates cold;
    /** Keys forgotten while Redis may still hold them: their next decision reads them first. */
    private final ForgottenKeys forgotten;
    private final StateTemplates templates = new StateTemplates();
    /** Where a record read out of the cold tier is copied: a spare one of the templates'. */
    private final IntFunction<long[]> records = templates::record;
    private final long seed = new SecureRandom().nextLong();
    private final ConcurrentLinkedQueue<String> forgets = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean forgetAll = new AtomicBoolean();
    /** The store's time at the last lookup or write: when a key pushed out of the hot tier is judged expired. */
    private long lastNanos;
    /** The entry of the key that cooled last, made over for the next key that warms; else null. */
    private @Nullable KeyState spare;

    public KeyStates(int max) {
        this.hotMax = Math.min(max, HOT_KEYS);
        this.cold = new ColdStates(max - hotMax);
        this.forgotten = new ForgottenKeys(max);
        this.hot = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, KeyState> eldest) {
                if (size() <= hotMax) {
                    return false;
                }
                KeyState cooled = eldest.getValue();
                cool(eldest.getKey(), cooled);
                // no round refers to an entry (it reads it into its cell at once): made over for the
                // next key that warms
                cooled.clear();
                spare = cooled;
                return true;
            }
        };
    }

    /** The state remembered for {@code key}, unless there is none or it may have expired by {@code nowNanos}. */
    public @Nullable KeyState get(String key, long nowNanos) {
        lastNanos = nowNanos;
        KeyState state = hot.get(key);
        if (state != null) {
            if (nowNanos - state.expiresNanos() >= 0) {
                hot.remove(key);
                return null;
            }
            return state;
        }
        long fingerprint = fingerprint(key);
        long[] rec = cold.get(fingerprint, nowNanos, records);
        if (rec == null) {
            return null;
        }
        if (StateTemplates.check(rec) != key.hashCode()) {
            templates.recycle(rec); // a copy: the cold tier keeps its own
            return null;
        }
        // it was written or confirmed as a bucket state; hot again, as its record: the round that
        // uses it decodes it into a scratch buffer and parses it into a state of its own, which it
        // computes on without a copy (parse), and its write puts the parsed state it leaves here
        // (KeyState#unparsed); unwritten, the record goes back to the cold tier as it is
        KeyState warm = spareEntry();
        if (StateTemplates.template(rec) == StateTemplates.ABSENT) {
            warm.absent(rec[StateTemplates.CONFIRMED], rec[StateTemplates.EXPIRES]);
            templates.recycle(rec);
        } else {
            warm.cold(rec, rec[StateTemplates.CONFIRMED], rec[StateTemplates.EXPIRES]);
        }
        cold.remove(fingerprint);
        hot.put(key, warm);
        return warm;
    }

    /**
     * Remembers {@code state} for {@code key}; past the bound, a key used long ago is forgotten.
     * The state is handed over: {@link #confirmBytes} and the others make it over in place later.
     */
    void put(String key, KeyState state, long nowNanos) {
        lastNanos = nowNanos;
        // idle keys leave as new ones come, not only at the bound (at the bound the eldest leaves
        // anyway as a key comes, and is not kept cold when it expired)
        if (hot.size() < hotMax) {
            Iterator<KeyState> eldest = hot.values().iterator();
            for (int i = 0; i < SWEEP && eldest.hasNext(); i++) {
                if (nowNanos - eldest.next().expiresNanos() >= 0) {
                    eldest.remove();
                } else {
                    break;
                }
            }
        }
        // a key already hot (most writes: a round made its key hot when it computed on it) is in
        // neither the cold tier nor the notes, so nothing there is looked up: a million keys'
        // table is a cache miss or more a probe
        if (hot.put(key, state) == null) {
            long fingerprint = fingerprint(key);
            cold.remove(fingerprint);
            forgotten.remove(fingerprint);
        }
    }

    /**
     * Remembers that Redis confirmed at {@code nowNanos} that {@code key} holds {@code bytes}, their
     * parsed {@code state} (a read's answer, a differing key's); digested here.
     */
    public void confirmBytes(String key, byte[] bytes, @Nullable RemoteBucketState state, long nowNanos,
                             long ttlMillis) {
        confirmHeld(key, StateDigest.local().of(bytes), bytes, state, nowNanos, ttlMillis);
    }

    /**
     * Remembers that a script that ran confirmed at {@code nowNanos} that {@code key} holds the
     * state whose SHA-1 is {@code sha1} (what it wrote, else what it expected there): the state and
     * its digest, not its bytes (the script's were in a buffer of the thread that sent it).
     */
    public void confirmDigest(String key, StateSha1 sha1, @Nullable RemoteBucketState state, long nowNanos,
                              long ttlMillis) {
        confirmHeld(key, sha1, null, state, nowNanos, ttlMillis);
    }

    /**
     * Remembers what Redis confirmed at {@code key} (as {@link #knownState} makes it): in the key's
     * own entry when it is hot (every write of a key in use: a round made its key hot when it
     * computed on it), which costs no object; else as {@link #put}. A state confirmed again without
     * its bytes at hand (a key a script checked but did not write) keeps what the entry holds of it.
     */
    private void confirmHeld(String key, StateSha1 sha1, byte @Nullable [] bytes, @Nullable RemoteBucketState state,
                             long nowNanos, long ttlMillis) {
        KeyState entry = hot.get(key); // used now: the most recent, as a put would make it
        long expires = nowNanos + life(ttlMillis);
        if (entry == null) {
            put(key, spareEntry().set(sha1, bytes, state, nowNanos, expires), nowNanos);
            return;
        }
        lastNanos = nowNanos;
        if (bytes == null && entry.holds(sha1)) {
            entry.confirmedAgain(state, nowNanos, expires);
        } else {
            letGo(entry);
            entry.set(sha1, bytes, state, nowNanos, expires);
        }
    }

    /** Remembers that Redis confirmed at {@code nowNanos} that {@code key} holds nothing, for a while. */
    public void confirmAbsent(String key, long nowNanos) {
        KeyState entry = hot.get(key);
        long expires = nowNanos + ABSENT_REMEMBERED_NANOS;
        if (entry == null) {
            put(key, spareEntry().absent(nowNanos, expires), nowNanos);
            return;
        }
        lastNanos = nowNanos;
        letGo(entry);
        entry.absent(nowNanos, expires);
    }

    /** The entry of the key that cooled last, else a new one: to be made over for a key warming or confirmed. */
    private KeyState spareEntry() {
        KeyState made = spare != null ? spare : new KeyState();
        spare = null;
        return made;
    }

    /** Takes back the record of an entry made over for another state: no tier holds it any more. */
    private void letGo(KeyState entry) {
        long[] rec = entry.record();
        if (rec != null) {
            templates.recycle(rec);
        }
    }

    /**
     * The state of an {@linkplain KeyState#unparsed() unparsed} entry, parsed for a round of its own
     * (which may compute on it in place): its record decoded into this thread's scratch buffer and
     * parsed from there, no array of its own; its digest is set in the entry.
     */
    public RemoteBucketState parse(KeyState entry) {
        StateDigest digest = StateDigest.local();
        long[] rec = entry.record();
        if (rec == null) {
            byte[] bytes = Objects.requireNonNull(entry.bytes(), "an unparsed entry holds its record or its bytes");
            entry.digest(digest.of(bytes));
            return BucketMath.deserialize(bytes);
        }
        StateDigest.StateBuffer buffer = StateDigest.takeBuffer();
        try {
            byte[] scratch = buffer.room(templates.room(rec));
            int length = templates.decode(rec, scratch);
            entry.digest(digest.of(scratch, 0, length));
            return StateWire.read(scratch, length);
        } finally {
            StateDigest.giveBack(buffer);
        }
    }

    /**
     * The bytes of what {@code entry} holds (null: no key), in an array of their own: its bytes,
     * else its record decoded, else its state serialized (for a state this library wrote, its
     * bytes by construction).
     */
    byte @Nullable [] bytes(KeyState entry) {
        if (!entry.exists()) {
            return null;
        }
        byte[] bytes = entry.bytes();
        if (bytes != null) {
            return bytes;
        }
        long[] rec = entry.record();
        if (rec != null) {
            return templates.decode(rec);
        }
        return BucketMath.serialize(Objects.requireNonNull(entry.state(), "a state held is parsed or kept"));
    }

    /**
     * Whether a decision on {@code key} must read it before it computes: this instance forgot what
     * it held while Redis may still hold it (pushed out past the bound before it expired, or a
     * write to it in doubt) and has remembered nothing of it since. A key never seen is not read:
     * a new customer's keys are assumed absent, one round trip.
     */
    public boolean mustRead(String key, long nowNanos) {
        if (forgotten.isEmpty()) {
            return false; // nothing forgotten yet: no hash to compute
        }
        long fingerprint = fingerprint(key);
        if (!forgotten.contains(fingerprint)) {
            return false;
        }
        KeyState state = hot.get(key); // about to be used by the round anyway
        if (state != null && nowNanos - state.expiresNanos() < 0) {
            return false;
        }
        return !cold.has(fingerprint, key.hashCode(), nowNanos);
    }

    /**
     * Whether a state of {@code key}, not expired by {@code nowNanos}, is remembered; parses nothing
     * and moves nothing between the tiers.
     */
    public boolean remembers(String key, long nowNanos) {
        KeyState state = hot.get(key);
        if (state != null) {
            return nowNanos - state.expiresNanos() < 0;
        }
        return cold.has(fingerprint(key), key.hashCode(), nowNanos);
    }

    /** Forgets {@code key} now (the combiner only): it holds nothing, as far as this instance knows. */
    void remove(String key) {
        hot.remove(key);
        cold.remove(fingerprint(key));
    }

    /**
     * Forgets {@code key} now, not knowing what Redis holds there (a write in doubt): its next
     * decision reads it first (the combiner only).
     */
    public void forget(String key) {
        remove(key);
        forgotten.add(fingerprint(key));
    }

    /** Asks the combiner to forget {@code key} before it next reads; any thread. */
    public void forgetLater(String key) {
        forgets.add(key);
    }

    /** Asks the combiner to forget every key before it next reads; any thread. */
    public void forgetAllLater() {
        forgetAll.set(true);
    }

    /** Applies the forgets asked for (the combiner only, before a round reads). */
    public void applyForgets() {
        if (forgetAll.getAndSet(false)) {
            hot.clear();
            cold.clear();
            forgotten.clear();
        }
        String key;
        while ((key = forgets.poll()) != null) {
            remove(key);
        }
    }

    /** How many keys are remembered (expired ones included until they are looked at). */
    int size() {
        return hot.size() + cold.size();
    }

    /**
     * Keeps a key leaving the hot tier compact, unless it expired; notes the key the cold tier
     * forgot for it before it expired (this one, when the cold tier keeps none).
     */
    private void cool(String key, KeyState state) {
        long[] kept = state.record();
        if (lastNanos - state.expiresNanos() < 0) {
            long[] rec = kept;
            if (rec != null) {
                // back from the cold tier and not written since: it goes back as it came, at the
                // entry's times
                rec[StateTemplates.CONFIRMED] = state.confirmedNanos();
                rec[StateTemplates.EXPIRES] = state.expiresNanos();
            } else if (state.bytes() != null || !state.exists()) {
                rec = templates.encode(state.bytes(), state.confirmedNanos(), state.expiresNanos(), key.hashCode());
            } else {
                // a state this instance wrote: serialized again into this thread's scratch buffer,
                // which for a state this library wrote gives its bytes by construction (were they
                // to differ, the next compare-and-swap would find the key differing: a conflict)
                rec = encodeState(Objects.requireNonNull(state.state(), "a state held is parsed or kept"), state,
                        key.hashCode());
            }
            long lost = cold.put(fingerprint(key), rec, lastNanos);
            templates.recycle(rec); // the cold tier keeps a copy: the next record is written over this one
            if (lost != 0) {
                forgotten.add(lost);
            }
        } else if (kept != null) {
            templates.recycle(kept);
        }
    }

    /** The record of {@code parsed}, {@code entry}'s state, serialized into this thread's scratch buffer. */
    private long[] encodeState(RemoteBucketState parsed, KeyState entry, int check) {
        StateDigest.StateBuffer buffer = StateDigest.takeBuffer();
        try {
            byte[] scratch = buffer.room(256);
            int length = StateWire.write(parsed, scratch, 0);
            if (length < 0) {
                scratch = buffer.room(-length);
                length = StateWire.write(parsed, scratch, 0);
            }
            return templates.encode(scratch, length, entry.confirmedNanos(), entry.expiresNanos(), check);
        } finally {
            StateDigest.giveBack(buffer);
        }
    }

    /** The heap the notes of forgotten keys take ({@link ForgottenKeys}), in bytes. */
    long forgottenBytes() {
        return forgotten.bytes();
    }

    /** 64 bits of a hash of {@code key} seeded per instance (FNV-1a, then MurmurHash3's finalizer); never 0. */
    private long fingerprint(String key) {
        long h = seed;
        for (int i = 0; i < key.length(); i++) {
            h = (h ^ key.charAt(i)) * 0x100000001B3L;
        }
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        h ^= h >>> 33;
        return h == 0 ? 1 : h;
    }

    /** What is remembered of a key Redis confirmed at {@code nowNanos}, kept as long as its TTL allows. */
    static KeyState knownState(byte @Nullable [] bytes, @Nullable RemoteBucketState state, long nowNanos,
                               long ttlMillis) {
        if (bytes == null) {
            return new KeyState().absent(nowNanos, nowNanos + ABSENT_REMEMBERED_NANOS);
        }
        return new KeyState().set(StateDigest.local().of(bytes), bytes, state, nowNanos, nowNanos + life(ttlMillis));
    }

    /** How long a state Redis confirmed is remembered: {@code ttlMillis} less a margin (no key: a while, {@link #confirmAbsent}). */
    private static long life(long ttlMillis) {
        return ttlMillis > 0 ? Math.max(0, TimeUnit.MILLISECONDS.toNanos(ttlMillis) - EXPIRY_MARGIN_NANOS)
                : Long.MAX_VALUE / 4;
    }
}
