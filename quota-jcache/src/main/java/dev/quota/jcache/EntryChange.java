package dev.quota.jcache;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketMath;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.Take;
import dev.quota.core.spi.UnreadableBuckets;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.MutableEntry;
import org.jspecify.annotations.Nullable;

/**
 * One change of one entry ({@link BucketEntry}), run by the grid where the entry lives, atomically:
 * a decision over the takes of a customer's buckets, tokens given back, or a bucket deleted. It
 * answers the entry as it was before the change (null for none), from which the caller computes
 * the same answers the change computed: the computation is {@link BucketEntry#decide}, with the
 * caller's clock, in both places.
 *
 * <p>Travels as a Java-serialized object holding only a byte array and numbers; the member that
 * runs it needs this module and quota-core on its class path (for Payara: the application,
 * deployed under the same name on every member, called from a thread with a Jakarta EE context).
 */
final class EntryChange implements EntryProcessor<String, byte[], byte[]>, Serializable {

    private static final long serialVersionUID = 1L;
    private static final byte CONSUME = 1;
    private static final byte ADD = 2;
    private static final byte RESET = 3;

    private final byte kind;
    /** The takes (for a give-back: the one bucket and its tokens; none for a delete), by {@link #encode}. */
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

    /** {@code tokens} given back to one bucket. */
    static EntryChange addTokens(BucketKey key, BucketSpec spec, long tokens, long nowNanos) {
        return new EntryChange(ADD, encode(List.of(Take.of(key, spec, tokens))), "", nowNanos);
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
        BucketEntry after = apply(before).withoutFull(nowNanos);
        if (after != before) {
            if (after.isEmpty()) {
                entry.remove();
            } else {
                entry.setValue(after.encode());
            }
        }
        return read == null ? null : bytes;
    }

    /** What the change makes of {@code before}; {@code before} itself when nothing changes. */
    private BucketEntry apply(BucketEntry before) {
        if (kind == RESET) {
            String field = BucketEntry.field(bucket);
            return before.get(field) == null ? before : before.with(field, null);
        }
        List<Take> decoded = decode(takes);
        if (kind == CONSUME) {
            return before.decide(decoded, nowNanos).after();
        }
        Take give = decoded.get(0);
        String field = BucketEntry.field(give.key().value());
        return before.with(field, BucketMath.addTokens(before.get(field), give.spec(), give.tokens(), nowNanos));
    }

    /** Takes as bytes: per take, its key, tokens, refusal tokens, config version and limits. */
    private static byte[] encode(List<Take> takes) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 * takes.size());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeShort(takes.size());
            for (Take take : takes) {
                out.writeUTF(take.key().value());
                out.writeLong(take.tokens());
                out.writeLong(take.refusalTokens());
                out.writeLong(take.spec().version());
                out.writeShort(take.spec().limits().size());
                for (Limit limit : take.spec().limits()) {
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
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array stream does not fail
        }
        return bytes.toByteArray();
    }

    private static List<Take> decode(byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int count = in.readUnsignedShort();
            List<Take> takes = new ArrayList<>(count);
            for (int t = 0; t < count; t++) {
                BucketKey key = new BucketKey(in.readUTF());
                long tokens = in.readLong();
                long refusalTokens = in.readLong();
                long version = in.readLong();
                int limits = in.readUnsignedShort();
                List<Limit> spec = new ArrayList<>(limits);
                for (int l = 0; l < limits; l++) {
                    String name = in.readUTF();
                    long capacity = in.readLong();
                    boolean greedy = in.readBoolean();
                    long refillTokens = in.readLong();
                    Duration period = Duration.ofSeconds(in.readLong(), in.readInt());
                    spec.add(new Limit(name, capacity, greedy ? Refill.greedy(refillTokens, period)
                            : Refill.interval(refillTokens, period)));
                }
                takes.add(new Take(key, new BucketSpec(spec, version), tokens, refusalTokens));
            }
            return takes;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
