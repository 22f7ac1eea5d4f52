package dev.quota.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.List;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * The collector's stop-the-world pauses, as the JVM reports each collection to its listeners
 * ({@link GarbageCollectionNotificationInfo}): what paused the bench while a slice was measured,
 * so a p99 can be set against the pauses of the same slice. Collectors that report concurrent
 * cycles apart (ZGC's and Shenandoah's "... Cycles") count only their pauses; G1 on Java 17 reports
 * young and mixed pauses ("G1 Young Generation") and full ones ("G1 Old Generation"), not the
 * short remark and cleanup pauses of its concurrent cycle.
 */
public final class GcPauses {

    /** One pause: when it began and how long it took (JVM uptime, ms), and the heap in use after it. */
    private record Pause(long startMillis, long durationMillis, long heapAfterBytes) {
    }

    private static final List<Pause> PAUSES = new ArrayList<>();

    static {
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter && !gc.getName().contains("Cycles")) {
                emitter.addNotificationListener((notification, handback) -> {
                    if (notification.getType().equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
                        GcInfo info = GarbageCollectionNotificationInfo
                                .from((CompositeData) notification.getUserData()).getGcInfo();
                        long after = info.getMemoryUsageAfterGc().values().stream().mapToLong(MemoryUsage::getUsed).sum();
                        synchronized (PAUSES) {
                            PAUSES.add(new Pause(info.getStartTime(), info.getDuration(), after));
                        }
                    }
                }, null, null);
            }
        }
    }

    private GcPauses() {
    }

    /**
     * What the collector paused over a stretch of time.
     *
     * @param pauses         pauses that began in it
     * @param longestMillis  the longest of them
     * @param totalMillis    their sum
     * @param heapAfterBytes the most heap in use right after one of them: after a young pause, about
     *                       the live set plus what was promoted since the last marking
     */
    public record Window(int pauses, long longestMillis, long totalMillis, long heapAfterBytes) {

        /** No pause. */
        public static final Window NONE = new Window(0, 0, 0, 0);

        /** This and {@code other} together (the slices of one limiter). */
        public Window plus(Window other) {
            return new Window(pauses + other.pauses, Math.max(longestMillis, other.longestMillis),
                    totalMillis + other.totalMillis, Math.max(heapAfterBytes, other.heapAfterBytes));
        }

        /** The share of {@code elapsedNanos} the bench stood paused. */
        public double pausedShare(long elapsedNanos) {
            return elapsedNanos == 0 ? 0 : totalMillis * 1e6 / elapsedNanos;
        }
    }

    /** Now, on the clock pauses are reported by (JVM uptime, ms). */
    static long now() {
        return ManagementFactory.getRuntimeMXBean().getUptime();
    }

    /** The pauses that began from {@code fromMillis} to {@code toMillis} ({@link #now()}'s clock). */
    static Window between(long fromMillis, long toMillis) {
        Window window = Window.NONE;
        synchronized (PAUSES) {
            for (Pause p : PAUSES) {
                if (p.startMillis() >= fromMillis && p.startMillis() <= toMillis) {
                    window = window.plus(new Window(1, p.durationMillis(), p.durationMillis(), p.heapAfterBytes()));
                }
            }
        }
        return window;
    }
}
