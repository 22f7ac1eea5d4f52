package dev.quota.jcache;

import dev.quota.core.spi.Adjustment;
import dev.quota.core.spi.BucketMath;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.Take;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The buckets one cache entry holds: every bucket whose key has the same first {@code {...}} part (all
 * of one customer's buckets, {@code quota:{c.<c>}:p}, {@code quota:{c.<c>}:r:export}, ... in entry
 * {@code quota:{c.<c>}}), or one bucket whose key has none. So a decision over a customer's buckets
 * reads and writes one entry, atomically, in one grid call each.
 *
 * <p>Stored form: the byte {@code 'q'}, the format version 1, the count of buckets, then per bucket
 * its field (the rest of its key, UTF-8) and its Bucket4j state in {@link BucketMath#serialize}'s form.
 * A bucket that is full again is left out when the entry is written: a missing bucket starts full,
 * so the entry holds only buckets that are in use (a calendar window that is over drops out).
 *
 * <p>Immutable; a change returns a new entry. Unchanged buckets keep the bytes they were read in.
 */
final class BucketEntry {

    private static final int MAGIC = 'q';
    private static final int FORMAT = 1;
    static final BucketEntry EMPTY = new BucketEntry(new TreeMap<>());

    /** Field to bucket, sorted so the stored form depends on the buckets only. */
    private final SortedMap<String, Field> fields;

    private BucketEntry(SortedMap<String, Field> fields) {
        this.fields = fields;
    }

    /** The key of the entry holding bucket {@code bucketKey}: through its first {@code {...}} part, else itself. */
    static String entryKey(String bucketKey) {
        int open = bucketKey.indexOf('{');
        int close = open < 0 ? -1 : bucketKey.indexOf('}', open + 1);
        return close < 0 ? bucketKey : bucketKey.substring(0, close + 1);
    }

    /** Where bucket {@code bucketKey} sits in its entry: the rest of its key after {@link #entryKey}. */
    static String field(String bucketKey) {
        return bucketKey.substring(entryKey(bucketKey).length());
    }

    /**
     * The takes of a consume grouped by entry (indexes into {@code takes}, in order of first
     * appearance): a customer's buckets together, a shared limit on its own.
     */
    static List<int[]> groups(List<Take> takes) {
        Map<String, List<Integer>> byEntry = new LinkedHashMap<>();
        for (int i = 0; i < takes.size(); i++) {
            byEntry.computeIfAbsent(entryKey(takes.get(i).key().value()), k -> new ArrayList<>(4)).add(i);
        }
        List<int[]> groups = new ArrayList<>(byEntry.size());
        for (List<Integer> group : byEntry.values()) {
            groups.add(group.stream().mapToInt(Integer::intValue).toArray());
        }
        return groups;
    }

    /**
     * The entry {@code bytes} encode.
     *
     * @throws IllegalArgumentException if they are not an entry of this format (a bucket state
     *                                  among them included)
     */
    static BucketEntry decode(byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            if (in.readUnsignedByte() != MAGIC || in.readUnsignedByte() != FORMAT) {
                throw new IllegalArgumentException("not a bucket entry of format " + FORMAT);
            }
            int count = in.readInt();
            if (count < 0 || count > bytes.length) {
                throw new IllegalArgumentException("bucket count " + count);
            }
            TreeMap<String, Field> fields = new TreeMap<>();
            for (int i = 0; i < count; i++) {
                String name = in.readUTF();
                int length = in.readInt();
                if (length < 0 || length > in.available()) {
                    throw new IllegalArgumentException("state of " + length + " bytes");
                }
                byte[] state = new byte[length];
                in.readFully(state);
                fields.put(name, new Field(state, BucketMath.deserialize(state)));
            }
            if (in.available() != 0) {
                throw new IllegalArgumentException(in.available() + " bytes after the last bucket");
            }
            return new BucketEntry(fields);
        } catch (IOException e) {
            throw new IllegalArgumentException("truncated bucket entry", e);
        }
    }

    /** The state of the bucket at {@code field}, or null when the entry has none (a full bucket). */
    @Nullable RemoteBucketState get(String field) {
        Field f = fields.get(field);
        return f == null ? null : f.state;
    }

    /** Whether the entry holds no bucket. */
    boolean isEmpty() {
        return fields.isEmpty();
    }

    /** This entry with {@code state} at {@code field} (null: the bucket removed). */
    BucketEntry with(String field, @Nullable RemoteBucketState state) {
        TreeMap<String, Field> changed = new TreeMap<>(fields);
        if (state == null) {
            changed.remove(field);
        } else {
            changed.put(field, new Field(null, state));
        }
        return new BucketEntry(changed);
    }

    /** This entry with each adjustment (of its own buckets) applied, as {@link BucketMath#adjust} computes it. */
    BucketEntry adjusted(List<Adjustment> group, long nowNanos) {
        BucketEntry after = this;
        for (Adjustment adjustment : group) {
            String field = field(adjustment.key().value());
            after = after.with(field, BucketMath.adjust(after.get(field), adjustment, nowNanos));
        }
        return after;
    }

    /**
     * A decision over {@code group} (takes of this entry's buckets) at {@code nowNanos}, as
     * {@link BucketMath#decide} computes it: the answer per take, and this entry with the taken
     * tokens (or this entry itself when nothing is taken).
     */
    Decision decide(List<Take> group, long nowNanos) {
        int n = group.size();
        String[] names = new String[n];
        RemoteBucketState[] before = new RemoteBucketState[n];
        for (int i = 0; i < n; i++) {
            names[i] = field(group.get(i).key().value());
            before[i] = get(names[i]);
        }
        BucketMath.Outcome outcome = BucketMath.decide(group, before, nowNanos);
        BucketEntry after = this;
        for (int i = 0; i < n; i++) {
            RemoteBucketState written = outcome.writes()[i];
            if (written != null) {
                after = after.with(names[i], written);
            }
        }
        return new Decision(outcome.results(), after);
    }

    /**
     * What a decision does to an entry.
     *
     * @param results one per take, in order
     * @param after   the entry after it; the same instance when nothing is taken
     */
    record Decision(List<ConsumeResult> results, BucketEntry after) {
    }

    /** This entry without the buckets that are full at {@code nowNanos}. */
    BucketEntry withoutFull(long nowNanos) {
        TreeMap<String, Field> kept = new TreeMap<>();
        for (Map.Entry<String, Field> e : fields.entrySet()) {
            if (nanosToFull(e.getValue().state, nowNanos) > 0) {
                kept.put(e.getKey(), e.getValue());
            }
        }
        return kept.size() == fields.size() ? this : new BucketEntry(kept);
    }

    /** Nanoseconds from {@code nowNanos} until every bucket of the entry is full again. */
    long nanosToFull(long nowNanos) {
        long longest = 0;
        for (Field f : fields.values()) {
            longest = Math.max(longest, nanosToFull(f.state, nowNanos));
        }
        return longest;
    }

    /**
     * The longest time any state of the entry's buckets needs to be full: an empty bucket of each
     * stored configuration refilling (a bound for whatever another instance may have written since).
     */
    long fromEmptyNanos() {
        long longest = 0;
        for (Field f : fields.values()) {
            for (Bandwidth bandwidth : f.state.getConfiguration().getBandwidths()) {
                longest = Math.max(longest, fromEmptyNanos(bandwidth));
            }
        }
        return longest;
    }

    /** The stored form. */
    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(16 + 96 * fields.size());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(MAGIC);
            out.writeByte(FORMAT);
            out.writeInt(fields.size());
            for (Map.Entry<String, Field> e : fields.entrySet()) {
                byte[] state = e.getValue().bytes();
                out.writeUTF(e.getKey());
                out.writeInt(state.length);
                out.write(state);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array stream does not fail
        }
        return bytes.toByteArray();
    }

    /** The state's time to full at {@code nowNanos}, counting what it refilled since it was written. */
    private static long nanosToFull(RemoteBucketState state, long nowNanos) {
        RemoteBucketState refilled = state.copy();
        refilled.refillAllBandwidth(nowNanos);
        return refilled.calculateFullRefillingTime(nowNanos);
    }

    /** Empty bandwidth to full: whole periods when it refills by interval, else rounded up to the nanosecond. */
    private static long fromEmptyNanos(Bandwidth bandwidth) {
        long capacity = bandwidth.getCapacity();
        long tokens = bandwidth.getRefillTokens();
        long period = bandwidth.getRefillPeriodNanos();
        try {
            if (bandwidth.isRefillIntervally()) {
                return Math.multiplyExact((capacity + tokens - 1) / tokens, period);
            }
            return Math.addExact(Math.multiplyExact(capacity, period), tokens - 1) / tokens; // rounded up
        } catch (ArithmeticException overflow) {
            return Long.MAX_VALUE;
        }
    }

    /** One bucket: its state, and the bytes it was read in (null: changed, serialized when written). */
    private record Field(
            // the bytes as read, written back as they are: never compared, copied or changed
            @SuppressWarnings("ArrayRecordComponent") byte @Nullable [] read,
            RemoteBucketState state) {
        byte[] bytes() {
            return read != null ? read : BucketMath.serialize(state);
        }
    }

    @Override
    public String toString() {
        return "BucketEntry" + fields.keySet();
    }
}
