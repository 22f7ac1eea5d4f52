package dev.quota.bench;

import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/** The histograms latencies are recorded in, in nanoseconds. */
public final class Latencies {

    /** The range sized up front: an hour; a longer latency still counts (the histogram grows). */
    private static final long RANGE_NANOS = TimeUnit.HOURS.toNanos(1);

    private Latencies() {
    }

    /**
     * An empty histogram with two significant digits (a percentile is within 1 % of the true
     * value), its counts allocated now, so recording in a measured slice allocates nothing.
     */
    public static Histogram histogram() {
        Histogram histogram = new Histogram(RANGE_NANOS, 2);
        histogram.setAutoResize(true);
        return histogram;
    }
}
