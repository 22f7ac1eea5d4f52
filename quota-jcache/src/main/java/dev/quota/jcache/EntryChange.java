package dev.quota.jcache;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.spi.Adjustment;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.LeaseHolder;
import dev.quota.core.spi.Take;
import dev.quota.core.spi.UnreadableBuckets;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.MutableEntry;
import org.jspecify.annotations.Nullable;

/**
 * One change of one entry ({@link BucketEntry}), run by the grid where the entry lives, atomically:
 * a decision over the takes of a customer's buckets ({@link BucketEntry#decide}, with the caller's
 * clock reading), buckets adjusted after the fact (tokens given back or taken regardless), or a
 * bucket deleted. A decision answers each take's result
 * ({@link Answer}); the other changes answer nothing.
 *
 * <p>Travels as a Java-serialized object holding only bytes, a key and numbers; the member that
 * runs it needs this module and quota-core on its class path (for Payara: the application,
 * deployed under the same name on every member, called from a thread with a Jakarta EE context).
 */
final class EntryChange implements EntryProcessor<String, byte[], byte[]>, Serializable {

    private static final long serialVersionUID = 1L;
    private static final byte CONSUME = 1;
    private static final byte ADD = 2;
    private static final byte RESET = 3;
    /** The most decoded specs a member keeps; see {@link #decode}. */
    private static final int MAX_SPECS = 10_000;
    private static final ConcurrentHashMap<ByteBuffer, BucketSpec> SPECS = new ConcurrentHashMap<>();

    private final byte kind;
    /** The takes by {@link #encode}, the adjustments by {@link #encodeAdjustments}; none for a delete. */
    private final byte[] takes;
    /** The bucket to delete; empty for the other kinds. */
    private final String bucket;
    private final long nowNanos;

    private EntryChange(byte kind, byte[] takes, String bucket, long nowNanos) {
        this.kind = kind;
        this.takes = takes;
        this.bucket = bucket;
        this.nowNanos = nowNanos;
    }

    /** A decision over {@code group}, the takes of one entry. */
    static EntryChange consume(List<Take> group, long nowNanos) {
        return new EntryChange(CONSUME, encode(group), "", nowNanos);
    }

    /** Buckets of one entry changed after the fact: tokens given back or taken regardless, leases given back ({@link Adjustment}). */
    static EntryChange adjust(List<Adjustment> group, long nowNanos) {
        return new EntryChange(ADD, encodeAdjustments(group), "", nowNanos);
    }

    /** One bucket deleted. */
    static EntryChange reset(BucketKey key) {
        return new EntryChange(RESET, encode(List.of()), key.value(), 0);
    }

    @Override
    public byte @Nullable [] process(MutableEntry<String, byte[]> entry, Object... arguments) {
        byte[] bytes = entry.exists() ? entry.getValue() : null;
        BucketEntry read = UnreadableBuckets.read("cache entry processor", entry.getKey(), bytes, BucketEntry::decode,
                unreadable -> entry.remove());
        BucketEntry before = read == null ? BucketEntry.EMPTY : read;
        BucketEntry.Decision decision = null;
        BucketEntry after;
        if (kind == RESET) {
            String field = BucketEntry.field(bucket);
            after = before.get(field) == null ? before : before.with(field, null);
        } else if (kind == CONSUME) {
            decision = before.decide(decode(takes), nowNanos);
            after = decision.after();
        } else {
            after = before.adjusted(decodeAdjustments(takes), nowNanos);
        }
        long nanosToFull = 0;
        if (after != before) {
            after = after.withoutFull(nowNanos);
            if (after.isEmpty()) {
                entry.remove();
            } else {
                entry.setValue(after.encode());
                nanosToFull = after.nanosToFull(nowNanos);
            }
        }
        return decision == null ? null : answer(decision.results(), after != before, nanosToFull);
    }

    /**
     * The answer of a decision: whether it wrote the entry and the entry's time to full then, and
     * each take's result.
     */
    private static byte[] answer(List<ConsumeResult> results, boolean written, long nanosToFull) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(16 + 48 * results.size());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeBoolean(written);
            out.writeLong(nanosToFull);
            out.writeShort(results.size());
            for (ConsumeResult result : results) {
                out.writeBoolean(result.tokensTaken());
                out.writeLong(result.nanosToWait());
                out.writeLong(result.nanosToFull());
                out.writeLong(result.lease());
                out.writeLong(result.extraTaken());
                out.writeShort(result.remaining().length);
                for (long remaining : result.remaining()) {
                    out.writeLong(remaining);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array stream does not fail
        }
        return bytes.toByteArray();
    }

    /**
     * A decision's answer as {@link #process} wrote it.
     *
     * @param results one per take, in order
     * @param written whether the entry was written
     * @param nanosToFull the written entry's time to full, 0 when removed or not written
     */
    record Answer(List<ConsumeResult> results, boolean written, long nanosToFull) {

        static Answer decode(byte[] bytes) {
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
                boolean written = in.readBoolean();
                long nanosToFull = in.readLong();
                int count = in.readUnsignedShort();
                List<ConsumeResult> results = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    boolean consumed = in.readBoolean();
                    long wait = in.readLong();
                    long toFull = in.readLong();
                    long lease = in.readLong();
                    long extraTaken = in.readLong();
                    long[] remaining = new long[in.readUnsignedShort()];
                    for (int r = 0; r < remaining.length; r++) {
                        remaining[r] = in.readLong();
                    }
                    // only a taken result holds a lease or extra tokens (the member wrote zeros otherwise)
                    results.add(consumed ? ConsumeResult.taken(remaining, wait, toFull, lease, extraTaken)
                            : ConsumeResult.notTaken(remaining, wait, toFull));
                }
                return new Answer(results, written, nanosToFull);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * Takes as bytes: per take, its key, tokens, refusal tokens, whether it is a shadow take, its
     * extra tokens, and its spec.
     */
    private static byte[] encode(List<Take> takes) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(96 * takes.size());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeShort(takes.size());
            for (Take take : takes) {
                out.writeUTF(take.key().value());
                out.writeLong(take.tokens());
                out.writeLong(take.refusalTokens());
                out.writeBoolean(take.shadow());
                out.writeLong(take.extra());
                byte[] spec = encode(take.spec());
                out.writeShort(spec.length);
                out.write(spec);
            }
            encodeHolders(takes, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array stream does not fail
        }
        return bytes.toByteArray();
    }

    // NONE is the holder every take carries where no instance registry is wired: the sentinel's identity
    // says "no holder"; a registry's holder is sent even when it has no tag nor dead tags
    @SuppressWarnings("ReferenceEquality")
    private static boolean holds(LeaseHolder holder) {
        return holder != LeaseHolder.NONE;
    }

    /**
     * The lease holders of the takes that have one, after the takes: their count, then per take its
     * index, its tag, the count of dead tags and those. Nothing when no take has one, so a change
     * reads the same to a member of a version without holders, which stops after the takes (its
     * lease sets then keep every slot to its deadline, as they did).
     */
    private static void encodeHolders(List<Take> takes, DataOutputStream out) throws IOException {
        int held = 0;
        for (Take take : takes) {
            held += holds(take.holder()) ? 1 : 0;
        }
        if (held == 0) {
            return;
        }
        out.writeShort(held);
        for (int i = 0; i < takes.size(); i++) {
            LeaseHolder holder = takes.get(i).holder();
            if (holds(holder)) {
                out.writeShort(i);
                out.writeLong(holder.tag());
                out.writeInt(holder.deadTags().size());
                for (long dead : holder.deadTags()) {
                    out.writeLong(dead);
                }
            }
        }
    }

    /**
     * Adjustments as bytes: per adjustment, its key, its signed tokens or the lease it gives back,
     * and its spec. Which of the two the number is, the spec says: a lease set's adjustment is
     * always a lease given back ({@link Adjustment#ofTokens} refuses a lease set).
     */
    private static byte[] encodeAdjustments(List<Adjustment> adjustments) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(80 * adjustments.size());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeShort(adjustments.size());
            for (Adjustment adjustment : adjustments) {
                out.writeUTF(adjustment.key().value());
                out.writeLong(adjustment.releasesLease() ? adjustment.lease() : adjustment.tokens());
                byte[] spec = encode(adjustment.spec());
                out.writeShort(spec.length);
                out.write(spec);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array stream does not fail
        }
        return bytes.toByteArray();
    }

    private static List<Adjustment> decodeAdjustments(byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int count = in.readUnsignedShort();
            List<Adjustment> adjustments = new ArrayList<>(count);
            for (int a = 0; a < count; a++) {
                BucketKey key = new BucketKey(in.readUTF());
                long tokensOrLease = in.readLong();
                byte[] encoded = new byte[in.readUnsignedShort()];
                in.readFully(encoded);
                BucketSpec spec = spec(encoded);
                adjustments.add(spec.leases() ? Adjustment.leaseRelease(key, spec, tokensOrLease)
                        : Adjustment.ofTokens(key, spec, tokensOrLease));
            }
            return adjustments;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A spec as bytes: its config version, whether it is a lease set, then per limit its name, capacity and refill. */
    private static byte[] encode(BucketSpec spec) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(8 + 48 * spec.limits().size());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeLong(spec.version());
            out.writeBoolean(spec.leases());
            out.writeShort(spec.limits().size());
            for (Limit limit : spec.limits()) {
                out.writeUTF(limit.name());
                out.writeLong(limit.capacity());
                // a spec holds greedy and interval refills only: calendar windows are resolved first
                boolean greedy = limit.refill() instanceof Refill.Greedy;
                long tokens = greedy ? ((Refill.Greedy) limit.refill()).tokens()
                        : ((Refill.Interval) limit.refill()).tokens();
                Duration period = greedy ? ((Refill.Greedy) limit.refill()).period()
                        : ((Refill.Interval) limit.refill()).period();
                out.writeBoolean(greedy);
                out.writeLong(tokens);
                out.writeLong(period.getSeconds());
                out.writeInt(period.getNano());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * The takes {@code bytes} encode. Specs are kept by their encoded form, so a member decoding the
     * same limits again hands Bucket4j the same spec instance, whose configuration is then built once
     * rather than per change; the table is emptied when it passes {@link #MAX_SPECS}.
     */
    private static List<Take> decode(byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int count = in.readUnsignedShort();
            List<Take> takes = new ArrayList<>(count);
            for (int t = 0; t < count; t++) {
                BucketKey key = new BucketKey(in.readUTF());
                long tokens = in.readLong();
                long refusalTokens = in.readLong();
                boolean shadow = in.readBoolean();
                long extra = in.readLong();
                byte[] spec = new byte[in.readUnsignedShort()];
                in.readFully(spec);
                // a shadow take has no refusal tokens; extra tokens make a second take only when asked for
                Take take = shadow ? Take.shadow(key, spec(spec), tokens) : Take.of(key, spec(spec), tokens, refusalTokens);
                takes.add(take.withExtra(extra));
            }
            if (in.available() > 0) { // the holders (encodeHolders)
                int held = in.readUnsignedShort();
                for (int h = 0; h < held; h++) {
                    int index = in.readUnsignedShort();
                    long tag = in.readLong();
                    int deadCount = in.readInt();
                    Set<Long> dead = new HashSet<>();
                    for (int d = 0; d < deadCount; d++) {
                        dead.add(in.readLong());
                    }
                    takes.set(index, takes.get(index).heldBy(new LeaseHolder(tag, dead)));
                }
            }
            return takes;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static BucketSpec spec(byte[] encoded) {
        ByteBuffer key = ByteBuffer.wrap(encoded);
        BucketSpec known = SPECS.get(key);
        if (known != null) {
            return known;
        }
        if (SPECS.size() >= MAX_SPECS) {
            SPECS.clear(); // an old config's specs, or a flood of scaled ones: decoded again when used
        }
        BucketSpec decoded = decodeSpec(encoded);
        BucketSpec raced = SPECS.putIfAbsent(key, decoded);
        return raced != null ? raced : decoded;
    }

    private static BucketSpec decodeSpec(byte[] encoded) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded))) {
            long version = in.readLong();
            boolean leases = in.readBoolean();
            int count = in.readUnsignedShort();
            List<Limit> limits = new ArrayList<>(count);
            for (int l = 0; l < count; l++) {
                String name = in.readUTF();
                long capacity = in.readLong();
                boolean greedy = in.readBoolean();
                long tokens = in.readLong();
                Duration period = Duration.ofSeconds(in.readLong(), in.readInt());
                limits.add(new Limit(name, capacity, greedy ? Refill.greedy(tokens, period)
                        : Refill.interval(tokens, period)));
            }
            if (leases) { // written from a lease set: its one interval limit, a token per slot per lease timeout
                Limit slots = limits.get(0);
                return BucketSpec.leases(slots.name(), slots.capacity(), ((Refill.Interval) slots.refill()).period(),
                        version);
            }
            return BucketSpec.of(limits, version);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
