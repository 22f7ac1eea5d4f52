package dev.quota.testkit;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Captures what slf4j-simple (the test binding, which writes to the current {@code System.err})
 * logs while it is open, and tees it to the original stream.
 */
public final class StderrCapture implements AutoCloseable {

    private final PrintStream original = System.err;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

    /** Starts capturing. */
    public StderrCapture() {
        System.setErr(new PrintStream(new TeeStream(original, captured), true, StandardCharsets.UTF_8));
    }

    /** What was written to {@code System.err} since this capture started. */
    public String text() {
        synchronized (captured) {
            return captured.toString(StandardCharsets.UTF_8);
        }
    }

    /** Puts the original {@code System.err} back. */
    @Override
    public void close() {
        System.setErr(original);
    }

    private static final class TeeStream extends java.io.OutputStream {
        private final PrintStream first;
        private final ByteArrayOutputStream second;

        TeeStream(PrintStream first, ByteArrayOutputStream second) {
            this.first = first;
            this.second = second;
        }

        @Override
        public void write(int b) {
            first.write(b);
            synchronized (second) {
                second.write(b);
            }
        }

        @Override
        public void write(byte[] b, int off, int len) {
            first.write(b, off, len);
            synchronized (second) {
                second.write(b, off, len);
            }
        }
    }
}
