package dev.quota.bench.http;

import dev.quota.bench.Latencies;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * The HTTP load, in a process of its own so the server's JVM is not also the client's: N
 * keep-alive connections, one thread each, sending {@code GET <path><id>} (or, with {@code --body},
 * {@code POST <path><id>} of that JSON) with a random customer's {@code X-API-Key}. Closed loop ({@code --rate 0}: the next request when the last is answered) or
 * paced ({@code --rate R} requests per second in total; latency from each request's scheduled
 * time, so queueing counts). After the warm-up it prints {@code WARMED} and waits for a line on
 * standard input; then it runs the measured load and prints one {@code RESULT key=value ...} line.
 *
 * <pre>
 * java -cp quota-bench.jar dev.quota.bench.http.LoadGenerator --port 8080 --connections 64 \
 *     --warmup 3 --duration 10 --rate 0 --keys 1000
 * </pre>
 */
public final class LoadGenerator {

    /** The API key of customer {@code i}, as the bench's quota config knows it. */
    public static String apiKey(int i) {
        return "bench-key-" + i;
    }

    private LoadGenerator() {
    }

    /** Runs the load described by the arguments and prints the RESULT line. */
    public static void main(String[] args) throws Exception {
        int port = 0;
        int connections = 64;
        double warmupSeconds = 2;
        double durationSeconds = 10;
        double rate = 0;
        int keys = 1000;
        String path = "/api/v1/accounts/";
        String body = null;
        for (int i = 0; i + 1 < args.length; i += 2) {
            String value = args[i + 1];
            switch (args[i]) {
                case "--port":
                    port = Integer.parseInt(value);
                    break;
                case "--connections":
                    connections = Integer.parseInt(value);
                    break;
                case "--warmup":
                    warmupSeconds = Double.parseDouble(value);
                    break;
                case "--duration":
                    durationSeconds = Double.parseDouble(value);
                    break;
                case "--rate":
                    rate = Double.parseDouble(value);
                    break;
                case "--keys":
                    keys = Integer.parseInt(value);
                    break;
                case "--path":
                    path = value;
                    break;
                case "--body":
                    body = value;
                    break;
                default:
                    throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (port <= 0) {
            throw new IllegalArgumentException("--port is required");
        }
        if (warmupSeconds > 0) {
            run(port, connections, rate, keys, path, body, (long) (warmupSeconds * 1e9));
        }
        // let the bench zero its counters between the warm-up and the measured run
        System.out.println("WARMED");
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII)).readLine();
        Totals totals = run(port, connections, rate, keys, path, body, (long) (durationSeconds * 1e9));
        Histogram h = totals.latency;
        System.out.println("RESULT requests=" + totals.requests + " ok=" + totals.ok + " rejected=" + totals.rejected
                + " errors=" + totals.errors + " elapsedNanos=" + totals.elapsedNanos
                + " p50=" + h.getValueAtPercentile(50) + " p90=" + h.getValueAtPercentile(90) + " p99=" + h.getValueAtPercentile(99)
                + " p999=" + h.getValueAtPercentile(99.9) + " max=" + h.getMaxValue());
    }

    private static final class Totals {
        long requests;
        long ok;
        long rejected;
        long errors;
        long elapsedNanos;
        final Histogram latency = Latencies.histogram();

        synchronized void add(long okCount, long rejectedCount, long errorCount, Histogram h) {
            requests += okCount + rejectedCount + errorCount;
            ok += okCount;
            rejected += rejectedCount;
            errors += errorCount;
            latency.add(h);
        }
    }

    private static Totals run(int port, int connections, double rate, int keys, String path, String body,
                              long durationNanos)
            throws InterruptedException {
        Totals totals = new Totals();
        CountDownLatch ready = new CountDownLatch(connections);
        CountDownLatch go = new CountDownLatch(1);
        long[] begin = new long[1];
        // paced: each connection sends every `interval` ns, connections staggered evenly
        double interval = rate > 0 ? 1e9 * connections / rate : 0;
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
            int connection = c;
            threads.add(new Thread(() -> {
                SplittableRandom random = new SplittableRandom(connection * 31L + 7);
                Histogram h = Latencies.histogram();
                long ok = 0;
                long rejected = 0;
                long errors = 0;
                Client client = null;
                try {
                    client = new Client(port);
                } catch (IOException e) {
                    errors++;
                }
                ready.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                long start = begin[0];
                long end = start + durationNanos;
                long k = 0;
                while (client != null) {
                    long scheduled;
                    if (interval > 0) {
                        scheduled = start + (long) ((k++ + (double) connection / connections) * interval);
                        if (scheduled >= end) {
                            break;
                        }
                        long now;
                        while ((now = System.nanoTime()) < scheduled) {
                            LockSupport.parkNanos(scheduled - now);
                        }
                    } else {
                        scheduled = System.nanoTime();
                        if (scheduled >= end) {
                            break;
                        }
                    }
                    int customer = random.nextInt(keys);
                    try {
                        int status = client.send(path + "acc-" + customer, apiKey(customer), body);
                        h.recordValue(System.nanoTime() - scheduled);
                        if (client.closing) {
                            // the server ends keep-alive after so many requests: a new connection, not an error
                            client.close();
                            client = new Client(port);
                        }
                        if (status == 200) {
                            ok++;
                        } else if (status == 429) {
                            rejected++;
                        } else {
                            errors++;
                        }
                    } catch (IOException e) {
                        errors++;
                        client.close();
                        try {
                            client = new Client(port);
                        } catch (IOException again) {
                            client = null;
                        }
                    }
                }
                if (client != null) {
                    client.close();
                }
                totals.add(ok, rejected, errors, h);
            }, "load-" + c));
        }
        threads.forEach(Thread::start);
        ready.await();
        begin[0] = System.nanoTime();
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }
        totals.elapsedNanos = System.nanoTime() - begin[0];
        return totals;
    }

    /** One keep-alive HTTP/1.1 connection: request line and headers out, status and body in. */
    private static final class Client {
        private final Socket socket;
        private final OutputStream out;
        private final InputStream in;
        private final byte[] line = new byte[8192];
        /** The last response said {@code Connection: close}. */
        boolean closing;

        Client(int port) throws IOException {
            socket = new Socket();
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(10_000);
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            out = new BufferedOutputStream(socket.getOutputStream(), 1024);
            in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
        }

        /** {@code GET path}, or with a body {@code POST path} of JSON; answers the status. */
        int send(String path, String apiKey, String body) throws IOException {
            String request = body == null
                    ? "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"
                            + "X-API-Key: " + apiKey + "\r\n\r\n"
                    : "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"
                            + "Content-Type: application/json\r\nContent-Length: "
                            + body.getBytes(StandardCharsets.UTF_8).length + "\r\nX-API-Key: " + apiKey + "\r\n\r\n" + body;
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            closing = false;
            String statusLine = readLine();
            int status = Integer.parseInt(statusLine.substring(9, 12));
            long length = -1;
            boolean chunked = false;
            while (true) {
                String header = readLine();
                if (header.isEmpty()) {
                    break;
                }
                int colon = header.indexOf(':');
                if (colon < 0) {
                    continue;
                }
                String name = header.substring(0, colon).trim();
                String value = header.substring(colon + 1).trim();
                if (name.equalsIgnoreCase("Content-Length")) {
                    length = Long.parseLong(value);
                } else if (name.equalsIgnoreCase("Transfer-Encoding") && value.equalsIgnoreCase("chunked")) {
                    chunked = true;
                } else if (name.equalsIgnoreCase("Connection") && value.equalsIgnoreCase("close")) {
                    closing = true;
                }
            }
            if (chunked) {
                while (true) {
                    long size = Long.parseLong(readLine().split(";")[0].trim(), 16);
                    skip(size);
                    readLine();
                    if (size == 0) {
                        break;
                    }
                }
            } else if (length > 0) {
                skip(length);
            }
            return status;
        }

        private void skip(long n) throws IOException {
            long left = n;
            while (left > 0) {
                long skipped = in.skip(left);
                if (skipped <= 0) {
                    if (in.read() < 0) {
                        throw new EOFException("connection closed in a body");
                    }
                    skipped = 1;
                }
                left -= skipped;
            }
        }

        private String readLine() throws IOException {
            int n = 0;
            while (true) {
                int b = in.read();
                if (b < 0) {
                    throw new EOFException("connection closed");
                }
                if (b == '\n') {
                    int end = n > 0 && line[n - 1] == '\r' ? n - 1 : n;
                    return new String(line, 0, end, StandardCharsets.ISO_8859_1);
                }
                if (n < line.length) {
                    line[n++] = (byte) b;
                }
            }
        }

        void close() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}
