package dev.quota.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.RawHttp;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the README promises a user's service, asked over real HTTP of a consumer project on any
 * runtime, wherever it mounts the README's resources ({@code api}: {@code ""} for a service of its
 * own, {@code /bank/api} for a WAR). {@code output} is the service's output so far, for the
 * failure messages. Each check expects a flushed Redis.
 */
final class ReadmeChecks {

    /** The key the README's plans.yaml gives customer acme on plan free. */
    static final String ACME_KEY = "acme-demo-key-0001";
    static final String EXPORT = "/api/v1/accounts/7/export";
    static final String IMPORTS = "/api/v1/accounts/7/imports";
    static final String STATEMENT = "/api/v1/accounts/7/statement";
    /** The service's own large download (32 MB), beside the README's resources. */
    static final String ARCHIVE = "/api/v1/accounts/7/archive";
    /** An address no other check calls from. */
    private static final String ARCHIVE_CALLER = "127.0.0.71";
    /** An address no other check calls from, for the import cut short. */
    private static final String UPLOAD_CALLER = "127.0.0.72";
    /** What the library logs for a body its client did not finish sending. */
    static final String BODY_NOT_READ = "the body of a request could not be read";
    /** How much of the archive the client reads before it resets: the server is writing by then. */
    private static final int READ_BEFORE_RESET = 64 * 1024;
    /** What the library logs for a response its client did not take (docs/operations.md, "The log"). */
    static final String NOT_WRITTEN = "a response was not written: the client reset its stream";
    /** An address no other check calls from: its anonymous burst is full when the statement check starts. */
    private static final String STATEMENT_CALLER = "127.0.0.61";
    /** The anonymous burst drips a token back every 12 s (5 a minute): the statement check's figures hold within that. */
    private static final long DRIP_MILLIS = 12_000;

    private ReadmeChecks() {
    }

    /**
     * 200 with RateLimit headers for a known key, 401 for an unknown one, and anonymous callers
     * limited per client address: 127.0.0.1 runs out, 127.0.0.2 still has its own.
     */
    static void exportsAndAnonymousCallers(int port, String api, Supplier<String> output) {
        RawHttp.Answer admitted = RawHttp.get("127.0.0.1", port, api + EXPORT, "X-API-Key", ACME_KEY);
        assertThat(admitted.status()).as("a known key, %s", output.get()).isEqualTo(200);
        assertThat(admitted.body()).isEqualTo("export of account 7");
        assertThat(admitted.header("RateLimit-Policy")).isEqualTo("\"free-burst\";q=20;w=2, \"free-daily\";q=2000;w=86400");
        // the export cost 10 of the burst of 20, which refills at 10 per second
        assertThat(admitted.header("RateLimit")).startsWith("\"free-burst\";r=10;t=1, \"free-daily\";r=1990;t=");

        RawHttp.Answer unknownKey = RawHttp.get("127.0.0.1", port, api + EXPORT, "X-API-Key", "not-a-key");
        assertThat(unknownKey.status()).as("an unknown key").isEqualTo(401);
        assertThat(unknownKey.header("Content-Type")).startsWith("application/problem+json");
        assertThat(unknownKey.header("WWW-Authenticate")).isEqualTo("ApiKey header=\"X-API-Key\"");
        assertThat(unknownKey.body()).contains("\"type\":\"urn:quota:problem:unknown-api-key\"");

        RawHttp.Answer anonymous = RawHttp.get("127.0.0.1", port, api + EXPORT);
        assertThat(anonymous.status()).as("the first anonymous export from 127.0.0.1").isEqualTo(200);
        assertThat(anonymous.header("RateLimit")).isEqualTo("\"anonymous-burst\";r=0;t=120");

        RawHttp.Answer rejected = RawHttp.get("127.0.0.1", port, api + EXPORT);
        assertThat(rejected.status()).as("the second anonymous export from 127.0.0.1").isEqualTo(429);
        assertThat(rejected.header("Content-Type")).startsWith("application/problem+json");
        assertThat(Long.parseLong(rejected.header("Retry-After"))).isPositive();
        assertThat(rejected.body()).contains("\"type\":\"urn:quota:problem:quota-exceeded\"")
                .contains("\"limit\":\"anonymous-burst\"");

        RawHttp.Answer otherClient = RawHttp.get("127.0.0.2", port, api + EXPORT);
        assertThat(otherClient.status()).as("an anonymous export from 127.0.0.2, after 127.0.0.1 ran out; %s",
                output.get()).isEqualTo(200);
        assertThat(otherClient.header("RateLimit")).isEqualTo("\"anonymous-burst\";r=0;t=120");
    }

    /**
     * Transfers decided with their amount: 201, then 429 with what is left, 422 for more than a day
     * holds, 400 for a negative amount or a malformed currency, never a 500.
     *
     * @return the status lines of the 429 and the 422, as the runtime wrote them
     */
    static List<String> transfers(int port, String api, Supplier<String> output) {
        RawHttp.Answer within = transfer(port, api, "EUR", 600_000);
        assertThat(within.status()).as("6,000.00 of the day's 10,000.00; %s", output.get()).isIn(200, 201);

        RawHttp.Answer overRemaining = transfer(port, api, "EUR", 600_000);
        assertThat(overRemaining.status()).as("6,000.00 more, with 4,000.00 left; %s", output.get())
                .isEqualTo(429);
        assertThat(overRemaining.header("Content-Type")).startsWith("application/problem+json");
        assertThat(Long.parseLong(overRemaining.header("Retry-After"))).isPositive();
        assertThat(overRemaining.body()).contains("\"type\":\"urn:quota:problem:quota-exceeded\"")
                .contains("\"limit\":\"transfer-amount-daily\"").contains("\"remaining\":400000");

        RawHttp.Answer overWhole = transfer(port, api, "EUR", 2_000_000);
        assertThat(overWhole.status()).as("20,000.00, more than a day ever holds; %s", output.get())
                .isEqualTo(422);
        assertThat(overWhole.header("Content-Type")).startsWith("application/problem+json");
        assertThat(overWhole.header("Retry-After")).as("retrying cannot help").isNull();
        assertThat(overWhole.body()).contains("\"type\":\"urn:quota:problem:exceeds-limit\"")
                .contains("\"limit\":\"transfer-amount-daily\"");

        RawHttp.Answer negative = transfer(port, api, "EUR", -500);
        assertThat(negative.status()).as("a negative amount; %s", output.get()).isEqualTo(400);
        assertThat(negative.header("Content-Type")).startsWith("application/problem+json");
        assertThat(negative.body()).contains("\"type\":\"urn:quota:problem:invalid-amount\"");

        RawHttp.Answer huge = transfer(port, api, "EUR", Long.MAX_VALUE);
        assertThat(huge.status()).as("an amount of Long.MAX_VALUE; %s", output.get()).isEqualTo(422);

        RawHttp.Answer badCurrency = transfer(port, api, "EUR;DROP", 100);
        assertThat(badCurrency.status()).as("a currency that is no currency code; %s", output.get())
                .isEqualTo(400);
        assertThat(badCurrency.body()).contains("\"type\":\"urn:quota:problem:invalid-amount\"")
                .doesNotContain("DROP");

        RawHttp.Answer otherCurrency = transfer(port, api, "USD", 600_000);
        assertThat(otherCurrency.status()).as("USD has a limit of its own; %s", output.get()).isIn(200, 201);
        return List.of(overRemaining.statusLine(), overWhole.statusLine());
    }

    /**
     * Requests the runtime refuses on a resource path are counted like any other (README, "What a
     * refused request costs"): 405 (DELETE on the transfers path) and 415 (a text/plain transfer)
     * cost an anonymous caller a token each, 10 at once per address, then 429 naming the anonymous burst.
     */
    static void runtimeRefusals(int port, String api, Supplier<String> output) {
        for (int i = 0; i < 10; i++) {
            RawHttp.Answer refused = RawHttp.send("127.0.0.51", port, "DELETE", api + "/api/v1/transfers", null);
            assertThat(refused.status()).as("anonymous DELETE %d; %s", i + 1, output.get()).isEqualTo(405);
        }
        RawHttp.Answer deletes = RawHttp.send("127.0.0.51", port, "DELETE", api + "/api/v1/transfers", null);
        assertThat(deletes.status()).as("the 11th DELETE; %s", output.get()).isEqualTo(429);
        assertThat(deletes.body()).contains("\"limit\":\"anonymous-burst\"");

        byte[] text = "6000.00 EUR".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < 10; i++) {
            RawHttp.Answer refused = RawHttp.send("127.0.0.52", port, "POST", api + "/api/v1/transfers", text,
                    "Content-Type", "text/plain");
            assertThat(refused.status()).as("text/plain transfer %d; %s", i + 1, output.get()).isEqualTo(415);
        }
        RawHttp.Answer texts = RawHttp.send("127.0.0.52", port, "POST", api + "/api/v1/transfers", text,
                "Content-Type", "text/plain");
        assertThat(texts.status()).as("the 11th text/plain transfer; %s", output.get()).isEqualTo(429);
        assertThat(texts.body()).contains("\"limit\":\"anonymous-burst\"");
    }

    /**
     * The README's import (rule {@code import}: cost 2, settled to its rows; 2 at once): charged
     * exactly its rows once answered, the next response showing it; then, while two imports of acme
     * are still uploading their bodies, a third is refused at once, 429 too-many-in-flight without
     * Retry-After; once one of the two has been answered its lease is back and the next is admitted.
     * {@code dailyLeft}: what acme has left of its day before (2000 on a flushed Redis), with a full
     * burst, or nearly so.
     */
    static void importsSettledAndInFlight(int port, String api, long dailyLeft, Supplier<String> output) {
        String imports = api + IMPORTS;
        // settled: 2 on arrival, then its 5 rows
        RawHttp.Answer fiveRows = importRows(port, imports, "1\n2\n3\n4\n5\n");
        assertThat(fiveRows.status()).as("an import of 5 rows; %s", output.get()).isEqualTo(201);
        assertThat(fiveRows.header("RateLimit")).as("the estimate, 2, taken on arrival")
                .contains(", \"free-daily\";r=" + (dailyLeft - 2) + ";t=");
        RawHttp.Answer oneRow = importRows(port, imports, "1\n");
        assertThat(oneRow.status()).as("an import of 1 row; %s", output.get()).isEqualTo(201);
        assertThat(oneRow.header("RateLimit")).as("the first settled to its 5 rows, this one's estimate taken")
                .contains(", \"free-daily\";r=" + (dailyLeft - 5 - 2) + ";t=");
        // the second import was settled to 1

        // in flight: two uploads under way take the 2 leases, a third is refused while they run
        byte[] row = "row\n".getBytes(StandardCharsets.US_ASCII);
        List<RawHttp.Held> held = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                held.add(RawHttp.hold("127.0.0.1", port, "POST", imports, row, row,
                        "X-API-Key", ACME_KEY, "Content-Type", "text/plain"));
            }
            RawHttp.Answer refused = firstAnswer(held, output);
            assertThat(refused.status()).as("the third of three imports under way; %s", output.get()).isEqualTo(429);
            assertThat(refused.body()).contains("\"type\":\"urn:quota:problem:too-many-in-flight\"")
                    .contains("\"limit\":\"import-in-flight\"").contains("\"inFlightLimit\":2");
            assertThat(refused.header("Content-Type")).startsWith("application/problem+json");
            assertThat(refused.header("Quota-In-Flight-Limit")).as("headers %s", refused.headers()).isEqualTo("2");
            assertThat(refused.header("Retry-After")).as("when a running import ends is nobody's guess").isNull();
            assertThat(refused.header("RateLimit")).isNull();
            List<RawHttp.Held> running = held.stream().filter(request -> !request.answer().isDone()).toList();
            assertThat(running).as("two imports still under way, holding the leases; %s", output.get()).hasSize(2);

            RawHttp.Answer first = running.get(0).finish();
            assertThat(first.status()).as("the first import under way, finished; %s", output.get()).isEqualTo(201);
            RawHttp.Answer next = importRows(port, imports, "1\n");
            assertThat(next.status()).as("an import once one of the two ended; %s", output.get()).isEqualTo(201);
            // less 2 and 2 for the two under way, 1 for the refused, 2 for this one's estimate
            assertThat(next.header("RateLimit")).contains(", \"free-daily\";r=" + (dailyLeft - 6 - 7) + ";t=");
            RawHttp.Answer second = running.get(1).finish();
            assertThat(second.status()).as("the second import under way, finished; %s", output.get()).isEqualTo(201);
        } finally {
            for (RawHttp.Held request : held) {
                closeQuietly(request);
            }
        }
    }

    /**
     * The README's statement (rule {@code statement}: 2 on arrival, then a token a row while it
     * streams) ends when its caller's plan does: an anonymous caller of a fresh address (burst of 10)
     * asks 2 days, which leaves it {@code r} (the response's {@code RateLimit}: 8, the estimate paid
     * for the 2 rows), then 100 days, of which it is sent exactly {@code r} rows (docs/configuration.md:
     * {@code r + debtCap}, {@code debtCap} 0), in a complete CSV (status 200, the header line, every row
     * whole, the body ended as its framing says); the next statement is refused 429 while the plan is empty.
     * The anonymous burst drips a token back every 12 s: the three requests take well under that, and
     * a failure says how long they took.
     */
    static void statementEndsWhenThePlanDoes(int port, String api, Supplier<String> output) {
        String statement = api + STATEMENT;
        long start = System.nanoTime();
        RawHttp.Answer twoDays = RawHttp.get(STATEMENT_CALLER, port, statement + "?days=2");
        assertThat(twoDays.status()).as("a statement of 2 days; %s", output.get()).isEqualTo(200);
        assertThat(twoDays.body()).isEqualTo("day,balance\n1,100.00\n2,100.00\n");
        // its estimate, 2, paid for its 2 rows: what the header says is left is what is left
        long left = remaining(twoDays.header("RateLimit"), "anonymous-burst");
        assertThat(left).as("the estimate taken of the burst of 10").isEqualTo(8);

        RawHttp.Answer hundredDays;
        try {
            hundredDays = RawHttp.get(STATEMENT_CALLER, port, statement + "?days=100");
        } catch (UncheckedIOException e) {
            throw new AssertionError("a statement of 100 days with " + left + " tokens left did not end cleanly"
                    + " (no last chunk, or the connection broken off); " + output.get(), e);
        }
        long millis = Duration.ofNanos(System.nanoTime() - start).toMillis();
        assertThat(hundredDays.status()).as("a statement of 100 days with %d left; %s", left, output.get())
                .isEqualTo(200);
        List<String> expected = new ArrayList<>(List.of("day,balance"));
        for (long day = 1; day <= left; day++) {
            expected.add(day + ",100.00");
        }
        assertThat(hundredDays.body().lines().toList()).as("the header, then exactly the %d rows the plan had left"
                + " (%d ms after the first statement; a token drips back every %d ms); %s", left, millis, DRIP_MILLIS,
                output.get()).isEqualTo(expected);
        assertThat(hundredDays.body()).as("the last row complete").endsWith("\n");

        RawHttp.Answer next = RawHttp.get(STATEMENT_CALLER, port, statement + "?days=1");
        assertThat(next.status()).as("a statement once the plan is empty; %s", output.get()).isEqualTo(429);
        assertThat(next.header("Content-Type")).startsWith("application/problem+json");
        assertThat(next.body()).contains("\"type\":\"urn:quota:problem:quota-exceeded\"")
                .contains("\"limit\":\"anonymous-burst\"");
    }

    /**
     * A client that resets its connection in the middle of a large download (docs/operations.md,
     * "The log"): the runtime's write fails, and what the service logs for it is one INFO line on
     * {@code dev.quota.client-errors}, without a stack trace, never SEVERE, ERROR or WARNING. The
     * client reads the first 64 KB, so the server is inside the entity's write when the reset comes
     * (32 MB fill every socket buffer). The runtime may log after the failed write returns (its own
     * close of the response): the output is checked once the line has come and the service has
     * answered another request since. {@code alwaysFails}: whether the runtime's write always fails
     * in the application; Quarkus REST may take the whole response into its own buffers first, so
     * that the reset fails inside Vert.x, which logs nothing (then no line is asserted, only that
     * nothing else was logged).
     */
    static void clientGoneMidDownload(int port, String api, Supplier<String> output, boolean alwaysFails) {
        int before = output.get().length();
        try (Socket socket = new Socket()) {
            socket.setReceiveBufferSize(4096);
            socket.bind(new InetSocketAddress(InetAddress.getByName(ARCHIVE_CALLER), 0));
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10_000);
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(("GET " + api + ARCHIVE + " HTTP/1.1\r\nHost: 127.0.0.1:" + port
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[4096];
            int read = 0;
            String start = "";
            while (read < READ_BEFORE_RESET) {
                int n = in.read(buffer);
                assertThat(n).as("the archive ended after %d bytes (%s); %s", read, start, output.get()).isPositive();
                if (read == 0) {
                    start = new String(buffer, 0, Math.min(n, 12), StandardCharsets.US_ASCII);
                    assertThat(start).as("the archive's status line; %s", output.get()).isEqualTo("HTTP/1.1 200");
                }
                read += n;
            }
            socket.setSoLinger(true, 0);
        } catch (IOException e) {
            throw new UncheckedIOException("the archive download before the reset", e);
        }
        if (alwaysFails) {
            awaitSince(output, before, NOT_WRITTEN, "a client's reset mid-download");
        }
        RawHttp.Answer after = RawHttp.get("127.0.0.1", port, api + EXPORT, "X-API-Key", ACME_KEY);
        assertThat(after.status()).as("a request after the reset; %s", output.get()).isIn(200, 429);
        String logged = output.get().substring(before);
        assertThat(logged.lines().filter(line -> line.contains(NOT_WRITTEN)).count())
                .as("one sampled line for the one response not written; since the reset:%n%s", logged)
                .isBetween(alwaysFails ? 1L : 0L, 1L);
        assertQuiet(logged, "a client's reset; since the reset");
    }

    /** No stack trace, and nothing above INFO, in {@code logged}: what a client's own failure may leave. */
    private static void assertQuiet(String logged, String what) {
        assertThat(logged).as("no stack trace, and nothing above INFO, for %s:%n%s", what, logged)
                .doesNotContainPattern("(?m)^\\s+at [\\w.$]+\\(")
                .doesNotContainPattern("(?i)\\b(SEVERE|ERROR|WARNING|WARN)\\b")
                // Liberty's messages.log: [time] thread logger E|W message
                .doesNotContainPattern("(?m)^\\[[^]]+] \\w+ \\S+\\s+[EW] ");
    }

    /**
     * A client that closes its connection in the middle of an import's body (it announced 100,000
     * bytes and sent 8): the runtime's read of the body fails, and what the service logs for it is
     * an INFO line on {@code dev.quota.client-errors}, without a stack trace, never SEVERE, ERROR
     * or WARNING. {@code alwaysFails}: whether the runtime's read always fails in the application;
     * Quarkus REST reads a body before the resource method, on Vert.x, and may drop a connection
     * closed mid-body there, logging nothing (then no line is asserted, only that nothing else was
     * logged).
     */
    static void clientGoneMidUpload(int port, String api, Supplier<String> output, boolean alwaysFails) {
        int before = output.get().length();
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress(InetAddress.getByName(UPLOAD_CALLER), 0));
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10_000);
            socket.getOutputStream().write(("POST " + api + IMPORTS + " HTTP/1.1\r\nHost: 127.0.0.1:" + port
                    // anonymous, from an address of its own: a full burst, whatever acme spent before
                    + "\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n"
                    + "1\n2\n3\n4\n").getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
            throw new UncheckedIOException("the import cut short", e);
        }
        if (alwaysFails) {
            awaitSince(output, before, BODY_NOT_READ, "an import's body cut short");
        }
        RawHttp.Answer after = RawHttp.get("127.0.0.1", port, api + EXPORT, "X-API-Key", ACME_KEY);
        assertThat(after.status()).as("a request after the import cut short; %s", output.get()).isIn(200, 429);
        String logged = output.get().substring(before);
        // Helidon fails the body three times, reading it, closing it, and in its error handlers: a line each
        assertThat(logged.lines().filter(line -> line.contains(BODY_NOT_READ)).count())
                .as("a sampled line for the body cut short; since it:%n%s", logged).isBetween(alwaysFails ? 1L : 0L, 3L);
        assertQuiet(logged, "a client's body cut short; since it");
    }

    /** Polls {@code output} past {@code from} until it contains {@code text}; 30 s at most, then fails saying what came {@code after} what. */
    private static String awaitSince(Supplier<String> output, int from, String text, String after) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            String since = output.get().substring(from);
            if (since.contains(text)) {
                return since;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no \"" + text + "\" in the service's output within 30 s of " + after
                        + "; since then:\n" + since);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** The {@code r} of {@code policy} in a {@code RateLimit} header: {@code "anonymous-burst";r=8;t=12}. */
    private static long remaining(String rateLimit, String policy) {
        assertThat(rateLimit).as("RateLimit").isNotNull();
        Matcher matcher = Pattern.compile("\"" + policy + "\";r=(\\d+);").matcher(rateLimit);
        assertThat(matcher.find()).as("%s in RateLimit: %s", policy, rateLimit).isTrue();
        return Long.parseLong(matcher.group(1));
    }

    /** The first answer to any of {@code requests}, waiting at most 30 s for it. */
    private static RawHttp.Answer firstAnswer(List<RawHttp.Held> requests, Supplier<String> output) {
        try {
            return (RawHttp.Answer) CompletableFuture.anyOf(
                    requests.stream().map(RawHttp.Held::answer).toArray(CompletableFuture[]::new))
                    .get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("no answer to any of " + requests.size()
                    + " imports under way: the runtime refused none of them on arrival; " + output.get(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void closeQuietly(RawHttp.Held request) {
        try {
            request.close();
        } catch (IOException e) {
            // the connection is gone either way
        }
    }

    /** The README's import of {@code rows}, one a line, by customer acme. */
    private static RawHttp.Answer importRows(int port, String path, String rows) {
        return RawHttp.send("127.0.0.1", port, "POST", path, rows.getBytes(StandardCharsets.US_ASCII),
                "X-API-Key", ACME_KEY, "Content-Type", "text/plain");
    }

    /** The README's transfer, {@code {"currency":"EUR","amountMinor":600000}}, by customer acme. */
    private static RawHttp.Answer transfer(int port, String api, String currency, long amountMinor) {
        return RawHttp.postJson("127.0.0.1", port, api + "/api/v1/transfers",
                "{\"currency\":\"" + currency + "\",\"amountMinor\":" + amountMinor + "}", "X-API-Key", ACME_KEY);
    }
}
