package dev.quota.bench.net;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Raises the calling thread's scheduling priority (nice -10) on Linux, with {@code renice} on its
 * thread id. The proxy stands for a network, whose delay does not grow when the client's CPU is
 * busy; at normal priority its two threads share the cores with every load thread of the bench and
 * write late whenever the machine is saturated. Needs CAP_SYS_NICE (root in a container); without
 * it nothing changes and {@link DelayProxy#lateness()} shows what that costs.
 */
final class ThreadPriority {

    /** Nice value asked for: above every normal thread, far from real-time. */
    static final int NICE = -10;

    private ThreadPriority() {
    }

    /** Whether the calling thread now runs at {@link #NICE}. */
    static boolean raiseCurrentThread() {
        try {
            // /proc/thread-self links to /proc/<pid>/task/<tid> for whichever thread reads it
            String tid = Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString();
            Process renice = new ProcessBuilder("renice", "-n", Integer.toString(NICE), "-p", tid)
                    .redirectErrorStream(true).start();
            renice.getInputStream().readAllBytes();
            return renice.waitFor(5, TimeUnit.SECONDS) && renice.exitValue() == 0;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
