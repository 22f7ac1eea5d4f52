package dev.quota.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a limiter costs the heap: the bytes it keeps (heap in use after a full collection, before
 * and after it met every customer once) and the bytes it allocates per decision (the JVM's
 * per-thread allocation counters, {@link com.sun.management.ThreadMXBean#getThreadAllocatedBytes}).
 */
final class MemoryMeter {

    private static final MemoryMXBean HEAP = ManagementFactory.getMemoryMXBean();
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private MemoryMeter() {
    }

    /**
     * Heap in use after a full collection, in bytes: what every reachable object holds. Collected
     * until two readings agree within 1 % (at most five times), so objects a finalizer or
     * reference queue freed late are gone too.
     */
    static long retainedHeap() {
        long last = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc(); // a full, stop-the-world collection unless the JVM was told otherwise
            long used = HEAP.getHeapMemoryUsage().getUsed();
            if (Math.abs(last - used) <= used / 100) {
                return used;
            }
            last = used;
        }
        return last;
    }

    /** Bytes the calling thread has allocated so far. */
    static long allocatedByThisThread() {
        return THREADS.getCurrentThreadAllocatedBytes();
    }

    /**
     * Bytes the live threads have allocated so far, except {@code excluded} (the delay proxy's: it
     * stands for the network). A thread that ends between two readings drops out of the second:
     * threads of a phase count their own ({@link #allocatedByThisThread}).
     */
    static long allocatedByLiveThreads(Set<Long> excluded) {
        long[] ids = THREADS.getAllThreadIds();
        long[] bytes = THREADS.getThreadAllocatedBytes(ids);
        long sum = 0;
        for (int i = 0; i < ids.length; i++) {
            if (bytes[i] > 0 && !excluded.contains(ids[i])) {
                sum += bytes[i];
            }
        }
        return sum;
    }

    /** The collectors and the maximum heap, e.g. {@code G1 Young Generation, G1 Old Generation; -Xmx 1024 MiB}. */
    static String describeHeap() {
        String collectors = ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(GarbageCollectorMXBean::getName).collect(Collectors.joining(", "));
        long max = HEAP.getHeapMemoryUsage().getMax();
        return String.format(Locale.ROOT, "collectors %s; max heap %s", collectors,
                max < 0 ? "unbounded" : (max >> 20) + " MiB");
    }
}
