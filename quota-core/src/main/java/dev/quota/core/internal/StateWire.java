package dev.quota.core.internal;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.BucketState;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import io.github.bucket4j.distributed.remote.RemoteStat;
import io.github.bucket4j.distributed.serialization.DeserializationAdapter;
import io.github.bucket4j.distributed.serialization.InternalSerializationHelper;
import io.github.bucket4j.distributed.serialization.Scope;
import io.github.bucket4j.distributed.serialization.SerializationAdapter;
import io.github.bucket4j.distributed.proxy.ClientSideConfig;
import io.github.bucket4j.distributed.versioning.Version;
import io.github.bucket4j.distributed.versioning.Versions;
import java.io.IOException;
import java.io.UTFDataFormatException;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Bucket states in their stored form, exactly Bucket4j's ({@link #WIRE_VERSION},
 * persisted-state scope), written and read without streams: a state is written into an array of
 * its exact size, and read without parsing its configuration again when that configuration's
 * bytes were seen before.
 *
 * <p>The form is {@code [format][configuration][bucket state][stat][has version, version]}. The
 * configuration part is the same for every bucket of one spec, so it is kept once per
 * configuration, as Bucket4j wrote it ({@link #known}): writing a state copies it, reading a
 * state whose configuration part equals it byte for byte gives the state that configuration
 * object, shared, as Bucket4j's own state copies share theirs. The other parts go through
 * Bucket4j's own serialization handles, here over an array instead of a data stream; only the
 * outer format number and the version are written here, as Bucket4j writes them (a state without
 * a version in the 7.0 format, one with a version in the 8.1 format). Anything else (bytes of an
 * unknown configuration, another format, bytes that are not a state) is read by Bucket4j's own
 * reader, which also throws what it throws for bytes that are not a state.
 *
 * <p>Thread-safe: the tables of known configurations are read and replaced without a lock; an
 * entry is immutable, so a reader sees a whole entry or another one, and a miss only costs a parse.
 */
public final class StateWire {

    /** The serialization format of stored states: Bucket4j's default for its proxy managers. */
    public static final Version WIRE_VERSION = ClientSideConfig.getDefault().getBackwardCompatibilityVersion();

    private static final int SLOTS = 64;
    private static final int V7 = Versions.v_7_0_0.getNumber();
    private static final int V8_1 = Versions.v_8_1_0.getNumber();
    /** Bytes of a bandwidth before its "has id" flag: format, four longs, a flag, a long, a flag. */
    private static final int BANDWIDTH_FIXED = 4 + 8 * 4 + 1 + 8 + 1;
    /** Whether the wire version writes a state's config version (8.1 or later): otherwise Bucket4j writes every state. */
    private static final boolean VERSIONED = WIRE_VERSION.getNumber() >= V8_1;

    /** Configurations seen, by a hash of their bytes. */
    private static final Known[] BY_BYTES = new Known[SLOTS];
    /** The same, by configuration instance. */
    private static final Known[] BY_INSTANCE = new Known[SLOTS];

    /**
     * The config version read last, boxed: the states read after it with the same version (every
     * bucket of a config) share it instead of boxing their own. A {@code Long} is immutable, so a
     * racy replace only costs a box.
     */
    private static volatile @Nullable Long lastVersion;

    /** Each thread's sink for {@link #write}: it counts a state's bytes, then writes them. */
    private static final Scratch<Sink> SINKS = Scratch.perThread("the thread's state sink", Sink::new);
    /**
     * Each thread's source for {@link #read}: a state read allocates only its own objects. A
     * read is not reentrant (Bucket4j's handles only call the adapter), and the source lets go of
     * the bytes after each read.
     */
    private static final Scratch<Source> SOURCES = Scratch.perThread("the thread's state source", Source::new);
    private static final byte[] NO_BYTES = new byte[0];

    private StateWire() {
    }

    /** A configuration and its stored form, as Bucket4j writes it. */
    private record Known(BucketConfiguration configuration,
                         // written once, then only read: never compared (the table holds one per instance)
                         @SuppressWarnings("ArrayRecordComponent") byte[] bytes,
                         int hash) {
    }

    /** The stored form of {@code state}, byte for byte Bucket4j's. */
    public static byte[] write(RemoteBucketState state) {
        if (!VERSIONED) {
            return InternalSerializationHelper.serializeState(state, WIRE_VERSION);
        }
        try {
            byte[] configuration = known(state.getConfiguration()).bytes;
            Sink sink = SINKS.take(); // the thread's: a state written allocates only its bytes
            try {
                sink.to(null);
                writeRest(sink, state);
                byte[] bytes = new byte[4 + configuration.length + sink.position];
                sink.to(bytes);
                Adapter.INSTANCE.writeInt(sink, state.getConfigurationVersion() == null ? V7 : V8_1);
                sink.write(configuration);
                writeRest(sink, state);
                return sink.bytes();
            } finally {
                sink.to(null); // keeps no state's bytes
                SINKS.giveBack(sink);
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A state from its stored form.
     *
     * @throws IllegalStateException as Bucket4j's reader does, if the bytes are not a state
     */
    public static RemoteBucketState read(byte[] bytes) {
        Source in = SOURCES.take().from(bytes);
        try {
            RemoteBucketState state = readKnown(in, bytes);
            if (state != null) {
                return state;
            }
        } catch (IOException | RuntimeException e) {
            // not in a shape read here: Bucket4j's reader decides, and throws what it throws
        } finally {
            in.from(NO_BYTES); // keeps no state's bytes
            SOURCES.giveBack(in);
        }
        RemoteBucketState state = InternalSerializationHelper.deserializeState(bytes);
        try {
            known(state.getConfiguration());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return state;
    }

    /**
     * Writes the stored form of {@code state} into {@code into} from {@code offset} and answers its
     * length; when it does not fit, writes nothing and answers minus its length.
     */
    public static int write(RemoteBucketState state, byte[] into, int offset) {
        if (!VERSIONED) {
            byte[] bytes = InternalSerializationHelper.serializeState(state, WIRE_VERSION);
            if (offset + bytes.length > into.length) {
                return -bytes.length;
            }
            System.arraycopy(bytes, 0, into, offset, bytes.length);
            return bytes.length;
        }
        try {
            byte[] configuration = known(state.getConfiguration()).bytes;
            Sink sink = SINKS.take();
            try {
                sink.to(null);
                writeRest(sink, state);
                int length = 4 + configuration.length + sink.position;
                if (offset + length > into.length) {
                    return -length;
                }
                sink.to(into);
                sink.position = offset;
                Adapter.INSTANCE.writeInt(sink, state.getConfigurationVersion() == null ? V7 : V8_1);
                sink.write(configuration);
                writeRest(sink, state);
                if (sink.position != offset + length) {
                    throw new IllegalStateException("a state's bytes must be as long as counted");
                }
                return length;
            } finally {
                sink.to(null); // keeps no state's bytes
                SINKS.giveBack(sink);
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A state from the first {@code length} bytes of {@code bytes}, as {@link #read(byte[])}: read in
     * place when its configuration is one seen before and it ends exactly at {@code length}; else
     * from a copy of exactly those bytes.
     */
    public static RemoteBucketState read(byte[] bytes, int length) {
        if (length == bytes.length) {
            return read(bytes);
        }
        Source in = SOURCES.take().from(bytes);
        try {
            RemoteBucketState state = readKnown(in, bytes);
            if (state != null && in.position == length) {
                return state;
            }
        } catch (IOException | RuntimeException e) {
            // not in a shape read here: read from its own bytes below
        } finally {
            in.from(NO_BYTES); // keeps no state's bytes
            SOURCES.giveBack(in);
        }
        return read(Arrays.copyOf(bytes, length));
    }

    /** Everything after the configuration: the bucket state, its stat and its version. */
    private static void writeRest(Sink out, RemoteBucketState state) throws IOException {
        BucketState.serialize(Adapter.INSTANCE, out, state.getState(), WIRE_VERSION, Scope.PERSISTED_STATE);
        RemoteStat.SERIALIZATION_HANDLE.serialize(Adapter.INSTANCE, out, state.getRemoteStat(), WIRE_VERSION,
                Scope.PERSISTED_STATE);
        Long version = state.getConfigurationVersion();
        if (version != null) {
            Adapter.INSTANCE.writeBoolean(out, true);
            Adapter.INSTANCE.writeLong(out, version);
        }
    }

    /** The state read from {@code in}, at the start of {@code bytes}, when its configuration part is one seen before; else null. */
    private static @Nullable RemoteBucketState readKnown(Source in, byte[] bytes) throws IOException {
        int format = Adapter.INSTANCE.readInt(in);
        if (format != V7 && format != V8_1) {
            return null;
        }
        int end = configurationEnd(bytes, in.position);
        int hash = hash(bytes, in.position, end);
        Known known = BY_BYTES[hash & (SLOTS - 1)];
        if (known == null || known.hash != hash
                || !Arrays.equals(known.bytes, 0, known.bytes.length, bytes, in.position, end)) {
            return null;
        }
        in.position = end;
        BucketState state = BucketState.deserialize(Adapter.INSTANCE, in);
        state.setConfiguration(known.configuration);
        RemoteStat stat = RemoteStat.SERIALIZATION_HANDLE.deserialize(Adapter.INSTANCE, in);
        Long version = null;
        if (format == V8_1 && Adapter.INSTANCE.readBoolean(in)) {
            version = boxed(Adapter.INSTANCE.readLong(in));
        }
        return new RemoteBucketState(state, stat, version);
    }

    /** {@code version} boxed: the last one read when it is the same ({@link #lastVersion}). */
    private static Long boxed(long version) {
        Long last = lastVersion;
        if (last != null && last.longValue() == version) {
            return last;
        }
        Long made = version;
        lastVersion = made;
        return made;
    }

    /**
     * Where the configuration part that starts at {@code start} ends: its format and bandwidth count,
     * then each bandwidth's fixed part and, when it has one, its id (a length and modified UTF-8).
     * A wrong guess only misses the table.
     */
    private static int configurationEnd(byte[] bytes, int start) {
        int p = start + 4;
        int bandwidths = ((bytes[p] & 0xff) << 24) | ((bytes[p + 1] & 0xff) << 16) | ((bytes[p + 2] & 0xff) << 8)
                | (bytes[p + 3] & 0xff);
        if (bandwidths < 1 || bandwidths > bytes.length) {
            throw new IllegalArgumentException("not a configuration");
        }
        p += 4;
        for (int i = 0; i < bandwidths; i++) {
            p += BANDWIDTH_FIXED;
            if (bytes[p++] != 0) {
                p += 2 + (((bytes[p] & 0xff) << 8) | (bytes[p + 1] & 0xff));
            }
        }
        if (p > bytes.length) {
            throw new IllegalArgumentException("not a configuration");
        }
        return p;
    }

    /**
     * The entry of {@code configuration}, made (its bytes written by Bucket4j's handle) and kept in
     * both tables the first time it is asked for.
     */
    private static Known known(BucketConfiguration configuration) throws IOException {
        int slot = System.identityHashCode(configuration) & (SLOTS - 1);
        Known known = BY_INSTANCE[slot];
        if (known != null) {
            // the table is by instance (the slot is the identity hash): an equal configuration
            // elsewhere only misses, and is written again
            @SuppressWarnings("ReferenceEquality")
            boolean same = known.configuration == configuration;
            if (same) {
                return known;
            }
        }
        Sink count = new Sink();
        BucketConfiguration.SERIALIZATION_HANDLE.serialize(Adapter.INSTANCE, count, configuration,
                WIRE_VERSION, Scope.PERSISTED_STATE);
        Sink out = new Sink();
        out.to(new byte[count.position]);
        BucketConfiguration.SERIALIZATION_HANDLE.serialize(Adapter.INSTANCE, out, configuration,
                WIRE_VERSION, Scope.PERSISTED_STATE);
        byte[] bytes = out.bytes();
        int hash = hash(bytes, 0, bytes.length);
        Known made = new Known(configuration, bytes, hash);
        BY_INSTANCE[slot] = made;
        Known sameBytes = BY_BYTES[hash & (SLOTS - 1)];
        if (sameBytes == null || sameBytes.hash != hash || !Arrays.equals(sameBytes.bytes, bytes)) {
            BY_BYTES[hash & (SLOTS - 1)] = made;
        }
        return made;
    }

    private static int hash(byte[] bytes, int from, int to) {
        int h = 1;
        for (int i = from; i < to; i++) {
            h = 31 * h + bytes[i];
        }
        return h ^ h >>> 16;
    }

    /** Where bytes are written: an array, or nothing (a count of the bytes). */
    private static final class Sink {
        private byte @Nullable [] bytes;
        private int position;

        /** From the start again, into {@code array} (null: counting). */
        void to(byte @Nullable [] array) {
            bytes = array;
            position = 0;
        }

        void write(byte[] part) {
            if (bytes != null) {
                System.arraycopy(part, 0, bytes, position, part.length);
            }
            position += part.length;
        }

        void writeBytes(long value, int count) {
            if (bytes != null) {
                for (int i = count - 1; i >= 0; i--) {
                    bytes[position + count - 1 - i] = (byte) (value >>> (8 * i));
                }
            }
            position += count;
        }

        byte[] bytes() {
            if (bytes == null || position != bytes.length) {
                throw new IllegalStateException("a state's bytes must fill their array exactly");
            }
            return bytes;
        }
    }

    /** Where bytes are read from. */
    private static final class Source {
        private byte[] bytes = NO_BYTES;
        private int position;

        /** From the start of {@code array}; answers itself. */
        Source from(byte[] array) {
            bytes = array;
            position = 0;
            return this;
        }

        long read(int count) throws IOException {
            if (position + count > bytes.length) {
                throw new IOException("end of bytes");
            }
            long value = 0;
            for (int i = 0; i < count; i++) {
                value = (value << 8) | (bytes[position + i] & 0xff);
            }
            position += count;
            return value;
        }
    }

    /** The encoding of {@code DataOutputStream} and {@code DataInputStream}, which Bucket4j's stored form uses. */
    private static final class Adapter implements SerializationAdapter<Sink>, DeserializationAdapter<Source> {

        static final Adapter INSTANCE = new Adapter();

        @Override
        public void writeBoolean(Sink target, boolean value) {
            target.writeBytes(value ? 1 : 0, 1);
        }

        @Override
        public void writeByte(Sink target, byte value) {
            target.writeBytes(value, 1);
        }

        @Override
        public void writeInt(Sink target, int value) {
            target.writeBytes(value, 4);
        }

        @Override
        public void writeLong(Sink target, long value) {
            target.writeBytes(value, 8);
        }

        @Override
        public void writeLongArray(Sink target, long[] value) {
            target.writeBytes(value.length, 4);
            for (long v : value) {
                target.writeBytes(v, 8);
            }
        }

        @Override
        public void writeDoubleArray(Sink target, double[] value) {
            target.writeBytes(value.length, 4);
            for (double v : value) {
                target.writeBytes(Double.doubleToLongBits(v), 8);
            }
        }

        /** Modified UTF-8 after a two-byte length, as {@code DataOutputStream.writeUTF}. */
        @Override
        public void writeString(Sink target, String value) throws IOException {
            int length = 0;
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                length += c >= 0x0001 && c <= 0x007F ? 1 : c > 0x07FF ? 3 : 2;
            }
            if (length > 65535) {
                throw new UTFDataFormatException("encoded string too long: " + length + " bytes");
            }
            target.writeBytes(length, 2);
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if (c >= 0x0001 && c <= 0x007F) {
                    target.writeBytes(c, 1);
                } else if (c > 0x07FF) {
                    target.writeBytes(0xE0 | ((c >> 12) & 0x0F), 1);
                    target.writeBytes(0x80 | ((c >> 6) & 0x3F), 1);
                    target.writeBytes(0x80 | (c & 0x3F), 1);
                } else {
                    target.writeBytes(0xC0 | ((c >> 6) & 0x1F), 1);
                    target.writeBytes(0x80 | (c & 0x3F), 1);
                }
            }
        }

        @Override
        public boolean readBoolean(Source source) throws IOException {
            return source.read(1) != 0;
        }

        @Override
        public byte readByte(Source source) throws IOException {
            return (byte) source.read(1);
        }

        @Override
        public int readInt(Source source) throws IOException {
            return (int) source.read(4);
        }

        @Override
        public long readLong(Source source) throws IOException {
            return source.read(8);
        }

        @Override
        public long[] readLongArray(Source source) throws IOException {
            int size = readInt(source);
            if (size < 0 || size > (source.bytes.length - source.position) / 8) {
                throw new IOException("not a long array");
            }
            long[] array = new long[size];
            for (int i = 0; i < size; i++) {
                array[i] = source.read(8);
            }
            return array;
        }

        @Override
        public double[] readDoubleArray(Source source) throws IOException {
            throw new IOException("a bucket state has no double array in the formats read here");
        }

        @Override
        public String readString(Source source) throws IOException {
            throw new IOException("a bucket state has no string in the formats read here");
        }
    }
}
