package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Property: whatever bytes a client puts into {@code X-API-Key}, the answer is 200, 400, 401 or 429,
 * never a 5xx, and never echoes the value; and each input gets the answer its kind calls for: the
 * customer's own key, sent once, is admitted every time, even while the garbage around it has
 * blocked the address for guessing (the key has worked from there); a key sent twice is 400 (or
 * 429 while blocked); an unknown key is 401 until the address has guessed too often, then 429; and
 * no key is an anonymous request. Seeded, so a failure reproduces; sent over raw sockets, because
 * {@code HttpClient} refuses to send most of these values.
 */
class HeaderFuzzTest {

    private static final long SEED = 20_260_411L;
    private static final int INPUTS = 2_000;

    private Fixture fixture;

    @AfterEach
    void stop() {
        fixture.close();
    }

    @Test
    void randomKeyHeaders_areAnswered200_400_401or429_neverAServerError() throws IOException {
        fixture = Fixture.start(TestConfig.standard());
        Random random = new Random(SEED);
        Map<String, Map<Integer, Integer>> statuses = new TreeMap<>();
        // the customer's key has worked from this address before the guessing starts
        assertThat(status(rawGet("X-API-Key", TestConfig.ACME_KEY.getBytes(StandardCharsets.US_ASCII), false)))
                .isEqualTo(200);

        for (int i = 0; i < INPUTS; i++) {
            if (i % 16 == 0) {
                // refill every bucket now and then, so most inputs get past the limits to the key checks
                fixture.clock.advance(Duration.ofMinutes(1));
            }
            byte[] value = value(random);
            boolean twice = random.nextInt(10) == 0;
            String name = random.nextBoolean() ? "X-API-Key" : "x-api-KEY";
            String response = rawGet(name, value, twice);
            int status = status(response);

            String shown = new String(value, StandardCharsets.ISO_8859_1);
            String kind = kind(value, twice);
            assertThat(status).as("input %d (%s, %d bytes) %s", i, kind, value.length, printable(shown))
                    .isIn(EXPECTED.get(kind));
            if (value.length >= 12 && status != 200) {
                assertThat(response).as("input %d is not echoed", i).doesNotContain(shown);
            }
            statuses.computeIfAbsent(kind, k -> new TreeMap<>()).merge(status, 1, Integer::sum);
        }

        System.out.println("HeaderFuzzTest: tried " + INPUTS + " X-API-Key values (seed " + SEED + "), statuses "
                + statuses);
        // the inputs reached the key checks, and the guessing around the valid key did block the address
        assertThat(statuses.get("unknown key")).containsKeys(401, 429);
        assertThat(statuses.get("sent twice")).containsKey(400);
        assertThat(statuses.get("valid key").get(200)).isGreaterThan(100);
    }

    /** The answers each kind of input may get. */
    private static final Map<String, List<Integer>> EXPECTED = Map.of(
            "valid key", List.of(200),
            "sent twice", List.of(400, 429),
            "no key", List.of(200, 429),
            "unknown key", List.of(400, 401, 429));

    /**
     * What the server should make of the value: HTTP trims leading and trailing spaces and tabs, so
     * a value of only those is no key at all.
     */
    private static String kind(byte[] value, boolean twice) {
        if (twice) {
            return "sent twice";
        }
        String text = new String(value, StandardCharsets.ISO_8859_1).replaceAll("^[ \\t]+|[ \\t]+$", "");
        if (text.isEmpty()) {
            return "no key";
        }
        return text.equals(TestConfig.ACME_KEY) ? "valid key" : "unknown key";
    }

    /** One hostile (or occasionally valid) header value. */
    private static byte[] value(Random random) {
        return switch (random.nextInt(10)) {
            case 0 -> new byte[0];
            case 1 -> TestConfig.ACME_KEY.getBytes(StandardCharsets.US_ASCII);
            case 2 -> ascii(random, 256 + random.nextInt(3_800), 0x21, 0x7E); // huge, up to ~4 KB
            case 3 -> controls(random);
            case 4 -> ("caf\u00e9-\u263a-" + Integer.toHexString(random.nextInt())).getBytes(StandardCharsets.UTF_8);
            case 5 -> raw(random, 1 + random.nextInt(64)); // any byte but CR and LF, invalid UTF-8 included
            case 6 -> (TestConfig.ACME_KEY + (char) (0x21 + random.nextInt(94))).getBytes(StandardCharsets.US_ASCII);
            case 7 -> ("  \t" + TestConfig.ACME_KEY + " , other").getBytes(StandardCharsets.US_ASCII);
            case 8 -> pick(random, "%00", "\"\\\"", "../../etc/passwd", "{a}:b", "${jndi:ldap://x/a}", "' OR 1=1--",
                    "quota:p:abc", "*", "null", ",,,,").getBytes(StandardCharsets.US_ASCII);
            default -> ascii(random, 1 + random.nextInt(80), 0x20, 0x7E);
        };
    }

    private static byte[] ascii(Random random, int length, int from, int to) {
        byte[] out = new byte[length];
        for (int i = 0; i < length; i++) {
            out[i] = (byte) (from + random.nextInt(to - from + 1));
        }
        return out;
    }

    private static byte[] controls(Random random) {
        byte[] out = ascii(random, 2 + random.nextInt(30), 0x21, 0x7E);
        int controls = 1 + random.nextInt(3);
        for (int i = 0; i < controls; i++) {
            int c;
            do {
                c = random.nextInt(0x20);
            } while (c == '\r' || c == '\n');
            out[random.nextInt(out.length)] = (byte) (random.nextInt(8) == 0 ? 0x7F : c);
        }
        return out;
    }

    private static byte[] raw(Random random, int length) {
        byte[] out = new byte[length];
        for (int i = 0; i < length; i++) {
            int b;
            do {
                b = random.nextInt(256);
            } while (b == '\r' || b == '\n');
            out[i] = (byte) b;
        }
        return out;
    }

    private static String pick(Random random, String... values) {
        return values[random.nextInt(values.length)];
    }

    private String rawGet(String name, byte[] value, boolean twice) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), fixture.server.port())) {
            socket.setSoTimeout(10_000);
            ByteArrayOutputStream request = new ByteArrayOutputStream();
            request.writeBytes("GET /api/v1/accounts/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            for (int i = 0; i < (twice ? 2 : 1); i++) {
                request.writeBytes((name + ": ").getBytes(StandardCharsets.US_ASCII));
                request.writeBytes(value);
                request.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            request.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
            OutputStream out = socket.getOutputStream();
            out.write(request.toByteArray());
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    /** The status code of {@code HTTP/1.1 401 Unauthorized}; -1 when there was no status line. */
    private static int status(String response) {
        if (!response.startsWith("HTTP/1.1 ") || response.length() < 12) {
            return -1;
        }
        return Integer.parseInt(response.substring(9, 12));
    }

    private static String printable(String value) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < Math.min(value.length(), 80); i++) {
            char c = value.charAt(i);
            out.append(c >= 0x20 && c < 0x7F ? String.valueOf(c) : String.format("\\x%02x", (int) c));
        }
        return out.toString();
    }
}
