package dev.quota.bench.http;

import dev.quota.bench.Latencies;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
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
                HttpConnection client = null;
                try {
                    client = new HttpConnection(port);
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
                        if (client.closing()) {
                            // the server ends keep-alive after so many requests: a new connection, not an error
                            client.close();
                            client = new HttpConnection(port);
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
                            client = new HttpConnection(port);
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
}
