package dev.quota.testkit;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Keeps every core busy for each test of a class (JUnit 5): two spinning threads per core, from
 * before the test until after it, so a test of exact counting runs on a saturated machine, as a
 * production server under load does, instead of an idle one. A claim that holds only on an idle
 * machine fails here.
 *
 * <pre>{@code
 * @ExtendWith(BusyCores.class)
 * class MultiInstanceTest { ... }
 * }</pre>
 *
 * <p>The threads are daemons of normal priority; each spins on a volatile flag and stops within
 * microseconds of the test's end. Whatever else the test starts (servers, Redis, other JVMs)
 * competes with them for the cores.
 */
public final class BusyCores implements BeforeEachCallback, AfterEachCallback {

    /** Spinning threads per core. */
    public static final int PER_CORE = 2;

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(BusyCores.class);

    @Override
    public void beforeEach(ExtensionContext context) {
        context.getStore(NAMESPACE).put(context.getUniqueId(), Spinners.start(
                PER_CORE * Runtime.getRuntime().availableProcessors()));
    }

    @Override
    public void afterEach(ExtensionContext context) throws InterruptedException {
        Spinners spinners = context.getStore(NAMESPACE).remove(context.getUniqueId(), Spinners.class);
        if (spinners != null) {
            spinners.stop();
        }
    }

    /** Threads that spin until stopped; how many rounds they made is their only output. */
    static final class Spinners {
        private final List<Thread> threads = new ArrayList<>();
        private volatile boolean running = true;
        /** Written by the spinners so the loop cannot be optimised away. */
        @SuppressWarnings("unused")
        private volatile long sink;

        static Spinners start(int count) {
            Spinners spinners = new Spinners();
            for (int i = 0; i < count; i++) {
                Thread thread = new Thread(spinners::spin, "busy-core-" + i);
                thread.setDaemon(true);
                spinners.threads.add(thread);
                thread.start();
            }
            return spinners;
        }

        private void spin() {
            long rounds = 0;
            while (running) {
                rounds++;
            }
            sink = rounds;
        }

        void stop() throws InterruptedException {
            running = false;
            for (Thread thread : threads) {
                thread.join();
            }
        }
    }
}
