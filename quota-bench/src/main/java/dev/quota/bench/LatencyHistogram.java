package dev.quota.bench;

/**
 * Latencies in nanoseconds, in log-linear buckets: 64 sub-buckets per power of two, so a
 * percentile is exact to within 1/64 (about 1.6 %). Not thread-safe: one per thread, then
 * {@link #add} them together.
 */
public final class LatencyHistogram {

    private static final int SUB_BITS = 6;
    private static final int SUB = 1 << SUB_BITS;
    private static final int BUCKETS = (64 - SUB_BITS) * SUB + SUB;

    private final long[] counts = new long[BUCKETS];
    private long total;
    private long max;

    /** Counts one latency; negative values count as zero. */
    public void record(long nanos) {
        long v = Math.max(0, nanos);
        counts[index(v)]++;
        total++;
        if (v > max) {
            max = v;
        }
    }

    /** Adds every count of {@code other} to this one. */
    public void add(LatencyHistogram other) {
        for (int i = 0; i < BUCKETS; i++) {
            counts[i] += other.counts[i];
        }
        total += other.total;
        max = Math.max(max, other.max);
    }

    /** How many latencies were recorded. */
    public long count() {
        return total;
    }

    /** The largest latency recorded, exact. */
    public long max() {
        return max;
    }

    /**
     * The latency below which {@code fraction} of the recorded ones lie (the upper edge of the
     * bucket holding that rank, never above the maximum); 0 when nothing was recorded.
     *
     * @throws IllegalArgumentException if fraction is not in (0, 1]
     */
    public long percentile(double fraction) {
        if (!(fraction > 0 && fraction <= 1)) {
            throw new IllegalArgumentException("fraction must be in (0, 1] but was " + fraction);
        }
        if (total == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(fraction * total);
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return Math.min(max, upperEdge(i));
            }
        }
        return max;
    }

    static int index(long v) {
        if (v < SUB) {
            return (int) v;
        }
        int msb = 63 - Long.numberOfLeadingZeros(v);
        int shift = msb - SUB_BITS;
        int sub = (int) (v >>> shift) & (SUB - 1);
        return (shift + 1) * SUB + sub;
    }

    static long upperEdge(int index) {
        if (index < SUB) {
            return index;
        }
        int shift = index / SUB - 1;
        long sub = index % SUB;
        return (((SUB + sub + 1) << shift)) - 1;
    }
}
